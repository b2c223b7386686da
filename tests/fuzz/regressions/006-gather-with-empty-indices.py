import cuda.tile as ct
NEG_INF=("")
@ct.kernel
def o(x,K:[]):v=ct.gather(x,(),padding_value=NEG_INF)