"""Decode attention over a latent cache given as both keys and values (the MLA decoding
pattern): each step's rows are loaded as K, then again as V in another axis order. Launched
with one array for both, the converted kernel takes V's tile from K's (a flag the launcher
sets) and computes the product of its transpose transposed (lower_memory_reuse.c)."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def latent_decode_kernel(Q, K, V, Out, TN: ConstInt, TD: ConstInt, TH: ConstInt, S: ConstInt):
    b = ct.bid(0)
    q = ct.reshape(ct.load(Q, index=(b, 0, 0), shape=(1, TD, TH)), (TD, TH))
    acc = ct.zeros((TD, TH), dtype=ct.float32)
    for j in range(S // TN):
        k = ct.load(K, index=(b, j, 0), shape=(1, TN, TD))
        k = ct.reshape(k, (TN, TD))
        s = ct.mma(k, q, ct.zeros((TN, TH), dtype=ct.float32))
        p = ct.exp(s - ct.max(s, 0)[None, :])
        v = ct.load(V, index=(j, b, 0), shape=(TN, 1, TD), order=(1, 0, 2))
        v = ct.transpose(ct.reshape(v, (TN, TD)))
        acc = ct.mma(v, ct.astype(p, Q.dtype), acc)
    ct.store(Out, index=(b, 0, 0), tile=ct.reshape(acc, (1, TD, TH)))


def latent_decode(q, kv, out, TN):
    B, TD, TH = q.shape
    ct.launch(torch.cuda.current_stream(), (B, 1, 1), latent_decode_kernel, (q, kv, kv, out, TN, TD, TH, kv.shape[1]))


def decode(q, k, v, out, TN):
    B, TD, TH = q.shape
    ct.launch(torch.cuda.current_stream(), (B, 1, 1), latent_decode_kernel, (q, k, v, out, TN, TD, TH, k.shape[1]))
