import cuda.tile as ct
def fg(x, n, limit):
    i = 0
@ct.kernel(bogus=1)
def find(x, y, n, limit):
     return
