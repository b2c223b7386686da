import cuda.tile as ct
@ct.kernel
def p(x):ct.load(x,index=(),shape=(),padding_mode=ct.PaddingMode.ZERO)