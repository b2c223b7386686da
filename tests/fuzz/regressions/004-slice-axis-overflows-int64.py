import cuda.tile as ct
@ct.kernel
def i(x,out):
    n=out.shape[1]
    g=x.slice(9223372036854775807,start=0,stop=n)