import cuda.tile as ct


@ct.kernel
def halves(x, y, i):
    t = ct.load(x, index=(0, 0), shape=(8, 16))
    left = ct.extract(t, (0, 0), shape=(8, 8))      # constant index: tl.split
    block = ct.extract(t, (1, 2), shape=(2, 4))     # constant index: tl.split per index bit
    corner = ct.extract(t, (i, 1), shape=(4, 8))    # run-time index: tl.gather
    one = ct.extract(t, (1, 3), shape=())
    swapped = ct.insert(t, (0, 1), left)
    swapped = swapped.insert((i, 0), corner + one)
    ct.store(y, index=(0, 0), tile=ct.insert(swapped, (3, 3), block))
