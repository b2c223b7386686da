import cuda.tile as cdef f():
 u