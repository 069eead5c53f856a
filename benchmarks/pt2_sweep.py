#!/usr/bin/env python3
"""Sweep of program variants beyond pt2_coverage.py and pt2_coverage_wider.py:
decode steps of other cache kinds and families (batched with a padding mask,
sliding-window and soft-capped, MoE, an encoder-decoder cache, StaticCache),
more MoE / vision / speech architectures, and op-level programs of the kinds
real programs meet (control flow, recurrent layers with initial states,
every resampling mode, sort / scatter / search, integer and fp16 paths,
attention with masks). Each goes through pt2_coverage.run(): saved as
exported (TRAINING) and after run_decompositions() (core), converted by
`modelexport export`, checked in ONNX Runtime at two shapes against eager
PyTorch; then every node of each converted file must carry its module
record (`modelexport.module` in the node's metadata_props), or the cell
says how many do not.

    /work/venvs/pt2/bin/python benchmarks/pt2_sweep.py [--only a,b] [--anchor] [--markdown FILE]

Results: docs/pt2-sweep.md.
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pt2_coverage as C  # noqa: E402
from pt2_coverage import AUTO, _lm, fn, lm, vision  # noqa: E402


# ------------------------------------------------------------------ decoders
def dynamic_cache(model, kv, n):
    """A DynamicCache of n layers from flat (keys, values) pairs, built with
    the model's config (sliding-window layers where the config has them)."""
    from transformers import DynamicCache
    cache = DynamicCache(config=model.config)
    for i in range(n):
        cache.update(kv[2 * i], kv[2 * i + 1], i)
    return cache


def with_cache(first, cache):
    """`first`, then every layer's keys and values: a step's flat outputs."""
    res = [first]
    for layer in cache.layers:
        res += [layer.keys, layer.values]
    return tuple(res)


class BatchedDecodeStep(nn.Module):
    """generate()'s step: one new token per row, a left-padded attention
    mask over cache + token, a DynamicCache built with the model's config
    (sliding-window layers where the config has them)."""

    def __init__(self, model, n):
        super().__init__()
        self.model, self.n = model, n

    def forward(self, ids, mask, *kv):
        cache = dynamic_cache(self.model, kv, self.n)
        out = self.model(input_ids=ids, attention_mask=mask, past_key_values=cache, use_cache=True)
        return with_cache(out.logits, out.past_key_values)


def bdecode(cfg, model, kvh=2, hd=8, n=2, past=(6, 10), min_past=1, **kw):
    def build():
        m = BatchedDecodeStep(_lm(cfg, model, use_cache=True, **kw), n)
        batch, cache = torch.export.Dim("batch", min=1, max=8), torch.export.Dim("past", min=min_past, max=60)

        def args(b, p):
            mask = torch.ones(b, p + 1, dtype=torch.long)
            mask[0, :2] = 0  # row 0 left-padded
            return (torch.randint(0, 64, (b, 1)), mask) + tuple(torch.randn(b, kvh, p, hd) for _ in range(2 * n))
        dyn = ({0: batch}, {0: batch, 1: cache + 1}, tuple({0: batch, 2: cache} for _ in range(2 * n)))
        return m, args(2, past[0]), args(3, past[1]), dyn
    return build


class StaticStep(nn.Module):
    """ExecuTorch-style decode step: a StaticCache held as mutable buffers,
    one token at a dynamic cache position."""

    def __init__(self, model):
        super().__init__()
        from transformers.integrations.executorch import TorchExportableModuleWithStaticCache
        model.generation_config.cache_implementation = "static"
        model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": 16}
        self.m = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=16)

    def forward(self, ids, pos):
        return self.m(input_ids=ids, cache_position=pos)


def static_step(cfg, model, **kw):
    def build():
        m = StaticStep(_lm(cfg, model, use_cache=True, **kw))
        return m, (torch.randint(0, 64, (1, 1)), torch.tensor([3])), (torch.randint(0, 64, (1, 1)), torch.tensor([7])), None
    return build


class WhisperStep(nn.Module):
    """Whisper decoder step: encoder output, an EncoderDecoderCache (self
    cache of dynamic length, cross cache over the audio frames)."""

    def __init__(self):
        super().__init__()
        import transformers as T
        self.m = T.WhisperForConditionalGeneration(T.WhisperConfig(
            vocab_size=64, num_mel_bins=8, d_model=32, encoder_layers=1, decoder_layers=2, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
            max_target_positions=32, decoder_start_token_id=1, pad_token_id=0, bos_token_id=1, eos_token_id=2))

    def forward(self, enc, dec, pos, *kv):
        from transformers import DynamicCache, EncoderDecoderCache
        self_c, cross_c = DynamicCache(), DynamicCache()
        for i in range(2):
            self_c.update(kv[4 * i], kv[4 * i + 1], i)
            cross_c.update(kv[4 * i + 2], kv[4 * i + 3], i)
        out = self.m(encoder_outputs=(enc,), decoder_input_ids=dec, past_key_values=EncoderDecoderCache(self_c, cross_c),
                     cache_position=pos, use_cache=True)
        c = out.past_key_values.self_attention_cache
        return out.logits, c.layers[0].keys, c.layers[1].values


def whisper_step():
    past = torch.export.Dim("past", min=1, max=30)

    def args(b, p):
        kv = []
        for _ in range(2):
            kv += [torch.randn(b, 4, p, 8), torch.randn(b, 4, p, 8), torch.randn(b, 4, 16, 8), torch.randn(b, 4, 16, 8)]
        return (torch.randn(b, 16, 32), torch.randint(0, 64, (b, 1)), torch.tensor([p])) + tuple(kv)
    dyn = ({0: AUTO}, {0: AUTO}, None, tuple(({0: AUTO, 2: past} if j % 4 < 2 else {0: AUTO}) for j in range(8)))
    return lambda: (WhisperStep(), args(2, 4), args(3, 7), dyn)


def hf(model, cfg, inputs_a, inputs_b, dyn, **kw):
    def build():
        import transformers as T
        return getattr(T, model)(getattr(T, cfg)(**kw)), inputs_a, inputs_b, dyn
    return build


class Logits(nn.Module):
    """A model whose forward returns a ModelOutput: keep its first tensor."""

    def __init__(self, m, key):
        super().__init__()
        self.m, self.key = m, key

    def forward(self, x):
        return getattr(self.m(x), self.key)


# ------------------------------------------------------------------ op programs
class CondMulti(nn.Module):
    """torch.cond with two outputs and a nested cond inside a branch."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x, y):
        def inner_t(t, u):
            return self.a(t) + u.sum(), u * 2

        def inner_f(t, u):
            return self.b(t), u - 1

        def outer_t(t, u):
            return torch.cond(u.mean() > 0, inner_t, inner_f, (t, u))

        def outer_f(t, u):
            return t.relu(), u.abs()
        return torch.cond(x.sum() > 0, outer_t, outer_f, (x, y))


class WhileLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(4, 4)

    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop

        def cond(i, h):
            return i < 3

        def body(i, h):
            return i + 1, torch.tanh(self.l(h))
        return while_loop(cond, body, (torch.tensor(0), x))[1]


class Recurrents(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 6, 2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(12, 5, 2, batch_first=True, bidirectional=True)
        self.rt = nn.RNN(10, 4, 2, nonlinearity="tanh")
        self.rr = nn.RNN(10, 4, 1, nonlinearity="relu", batch_first=True, bidirectional=True)

    def forward(self, x, h0, c0, g0):
        y, (h, c) = self.lstm(x, (h0, c0))
        z, g = self.gru(y, g0)
        r1, _ = self.rt(z.transpose(0, 1))
        r2, hr = self.rr(z)
        return y, h, c, z, g, r1, r2, hr


def recurrents():
    def a(b):
        return (torch.randn(b, 5, 8), torch.randn(4, b, 6), torch.randn(4, b, 6), torch.randn(4, b, 5))
    return fn(Recurrents, a(2), a(3), ({0: AUTO}, {1: AUTO}, {1: AUTO}, {1: AUTO}))


class GRUCellLoop(nn.Module):
    """Decoder-style cells: LSTMCell and GRUCell over a python loop."""

    def __init__(self):
        super().__init__()
        self.l, self.g = nn.LSTMCell(6, 8), nn.GRUCell(8, 8)

    def forward(self, x):
        h = c = torch.zeros(x.shape[0], 8)
        g = torch.zeros(x.shape[0], 8)
        outs = []
        for t in range(x.shape[1]):
            h, c = self.l(x[:, t], (h, c))
            g = self.g(h, g)
            outs.append(g)
        return torch.stack(outs, 1)


class Interp(nn.Module):
    def forward(self, x, v):
        return (F.interpolate(x, scale_factor=1.5, mode="nearest-exact"),
                F.interpolate(x, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
                F.interpolate(x, scale_factor=0.6, mode="bicubic", align_corners=False),
                F.interpolate(x, size=(5, 11), mode="area"),
                F.interpolate(x, scale_factor=2.5, mode="nearest"),
                F.interpolate(x, size=(12, 6), mode="bilinear", antialias=False, align_corners=True),
                F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True),
                F.interpolate(x, scale_factor=0.5, mode="bicubic", antialias=True),
                F.interpolate(v, scale_factor=(2, 1.5, 1.5), mode="trilinear"),
                F.interpolate(v, size=(3, 5, 7), mode="nearest"),
                F.interpolate(x[:, :, 0], scale_factor=3, mode="linear"),
                F.interpolate(x[:, :, 0], size=13, mode="nearest-exact"))


class GridSample(nn.Module):
    def forward(self, x, g, v, g3):
        outs = []
        for mode in ("bilinear", "nearest", "bicubic"):
            for pad in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    outs.append(F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac))
        outs.append(F.grid_sample(v, g3, mode="bilinear", padding_mode="border", align_corners=False))
        outs.append(F.affine_grid(torch.eye(2, 3).expand(x.shape[0], 2, 3), list(x.shape), align_corners=False))
        return tuple(outs)


class FoldUnfold(nn.Module):
    def forward(self, x):
        u = F.unfold(x, (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))
        p = F.unfold(x, 2, stride=2)
        back = F.fold(p, x.shape[-2:], 2, stride=2)
        over = F.fold(F.unfold(x, 3, padding=1), x.shape[-2:], 3, padding=1)
        return u, back, over, F.pixel_unshuffle(x, 2), F.pixel_shuffle(F.pixel_unshuffle(x, 2), 2), x.unfold(3, 3, 2)


class Sorts(nn.Module):
    def forward(self, x, ints):
        s = torch.sort(x, dim=1, stable=True)
        sd = torch.sort(ints, dim=-1, descending=True, stable=True)
        return (s.values, s.indices, sd.values, sd.indices, torch.argsort(x, 0), torch.topk(x, 2, dim=0, largest=False).values,
                torch.topk(x, 3, largest=False, sorted=True).indices, x.kthvalue(2, 1).values, x.msort(),
                torch.topk(x, x.shape[1] // 2, dim=1).values, x.max(0).indices, x.min(1).values, x.median(1).values,
                torch.sort(ints.float(), 1).indices)


class ScatterReduce(nn.Module):
    def forward(self, x, idx, rows):
        outs = []  # idx < 4: it also gathers from x
        base = torch.ones(x.shape[0], 6)
        for red in ("sum", "prod", "mean", "amax", "amin"):
            for inc in (True, False):
                outs.append(base.scatter_reduce(1, idx, x, red, include_self=inc))
        outs.append(base.scatter(1, idx[:, :2], 7.0))
        outs.append(base.scatter(1, idx, x, reduce="add"))
        outs.append(base.index_add(1, rows, x[:, :3], alpha=2.0))
        outs.append(base.index_copy(1, rows, x[:, :3]))
        outs.append(base.index_fill(1, rows, -1.0))
        m = x > 0
        outs.append(torch.zeros_like(x).masked_scatter(m, x.flip(1) * 3))
        outs.append(torch.gather(x, 1, idx.flip(1)))
        outs.append(torch.gather(x, 1, x.argsort(1)))  # take_along_dim here: torch.export pins the batch
        return tuple(outs)


class Search(nn.Module):
    def forward(self, x, edges):
        return (torch.bucketize(x, edges), torch.bucketize(x, edges, right=True), torch.searchsorted(edges, x),
                torch.searchsorted(edges, x.contiguous(), side="right", out_int32=True),
                torch.histc(x, bins=6, min=-2, max=2), torch.cumprod(x, 1), torch.logcumsumexp(x, 1), x.cummin(1).values,
                torch.cumsum(x.int(), 0), torch.searchsorted(x.sort(1).values, x[:, :2].contiguous()))


class Spectra(nn.Module):
    """FFT over static last dims (the batch is the dynamic one)."""

    def forward(self, x):
        f = torch.fft.fft2(x)
        r = torch.fft.rfft(x, n=12, dim=-1, norm="ortho")
        return (torch.view_as_real(f), torch.fft.irfft(r, n=12, dim=-1, norm="ortho"), torch.fft.ifft2(f).real,
                torch.fft.rfftn(x, dim=(-2, -1)).abs(), torch.fft.hfft(r, n=10), torch.fft.fftshift(x, dim=(-2, -1)),
                torch.fft.irfft(torch.fft.rfft(x), n=6))


class IntPaths(nn.Module):
    def forward(self, a, b, u, m):
        return (a + b, a * b, a // (b.abs() + 1), a % 5, torch.remainder(a, -3), a.div(b.abs() + 1, rounding_mode="trunc"),
                a & b, a | b, a ^ b, ~a, a << 2, a >> 1, u + u, u.to(torch.int32) * 3, (u > 100) & m, m ^ (a > 0),
                torch.where(m, a, b), a.abs(), a.clamp(-3, 3), a.sum(1), a.max(1).values, a.float() / 3, u.sum(), u.max(),
                torch.bitwise_left_shift(u, 1), a.to(torch.int64).cumsum(1), (a == b).any(1), m.all(1), m.sum(1),
                torch.sign(a), a.neg(), torch.minimum(a, b), u // 7, a.pow(2))


def int_paths():
    def a(n):
        g = torch.Generator().manual_seed(n)
        return (torch.randint(-20, 20, (n, 5), dtype=torch.int8, generator=g),
                torch.randint(-20, 20, (n, 5), dtype=torch.int8, generator=g),
                torch.randint(0, 250, (n, 5), dtype=torch.uint8, generator=g),
                torch.rand(n, 5, generator=g) > 0.5)
    return fn(IntPaths, a(2), a(3), ({0: AUTO},) * 4)


class HalfConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, groups=8, padding=1)
        self.gn = nn.GroupNorm(2, 8)
        self.up = nn.ConvTranspose2d(8, 4, 2, 2)
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        y = F.silu(self.bn(self.c1(x)))
        y = F.hardswish(self.gn(self.c2(y))) + y
        y = F.max_pool2d(y, 2)
        y = self.up(y)
        y = F.interpolate(y, scale_factor=0.5, mode="bilinear")
        return self.fc(y.mean((2, 3))).softmax(-1), y


class Einsums(nn.Module):
    def forward(self, a, b, c):
        return (torch.einsum("bij,bjk->bik", a, b), torch.einsum("bii->bi", a[:, :, :4]), torch.einsum("bij->b", a),
                torch.einsum("bij,bij->bi", a, a), torch.einsum("i,j->ij", c, c), torch.einsum("bhqd,bhkd->bhqk", a[:, None], a[:, None]),
                torch.einsum("...ij,...jk", a, b), torch.einsum("bij,k->bijk", a, c), torch.einsum("bij->jib", a),
                torch.einsum("ii", a[0, :, :4]), torch.einsum("bij,bkj->bik", a, a))


class Embeds(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(12, 6, padding_idx=0)
        self.f = nn.Embedding(12, 6, padding_idx=-1, scale_grad_by_freq=True)
        self.bag = nn.EmbeddingBag(12, 4, mode="max")
        self.bag_sum = nn.EmbeddingBag(12, 4, mode="sum", padding_idx=2)

    def forward(self, ids):
        return (self.e(ids), self.f(ids), self.bag(ids), self.bag_sum(ids, per_sample_weights=None),
                F.one_hot(ids, 12).sum(1), F.embedding(ids, self.e.weight * 2))


class MHAWeights(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.MultiheadAttention(16, 4, batch_first=True)
        self.b = nn.MultiheadAttention(16, 2, kdim=8, vdim=12, batch_first=False, bias=False, add_bias_kv=True)

    def forward(self, x, pad, kv8, kv12):
        o1, w1 = self.a(x, x, x, key_padding_mask=pad, need_weights=True)
        o2, w2 = self.a(x, x, x, key_padding_mask=pad, need_weights=True, average_attn_weights=False)
        s = x.shape[1]
        causal = torch.triu(torch.ones(s, s, dtype=torch.bool), 1)
        o3, _ = self.a(x, x, x, attn_mask=causal, need_weights=False)
        o4, w4 = self.b(x.transpose(0, 1), kv8.transpose(0, 1), kv12.transpose(0, 1))
        return o1, w1, o2, w2, o3, o4, w4


def mha_weights():
    def a(b, s, t):
        return (torch.randn(b, s, 16), C._pad(b, s), torch.randn(b, t, 8), torch.randn(b, t, 12))
    return fn(MHAWeights, a(2, 7, 5), a(3, 9, 6), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}))


class EncLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, norm_first=True, activation="gelu")
        self.post = nn.TransformerEncoderLayer(16, 2, 24, dropout=0.0, batch_first=False, activation=F.silu, bias=False)
        self.dec = nn.TransformerDecoderLayer(16, 4, 32, batch_first=True, norm_first=True)

    def forward(self, x, pad, mem):
        y = self.pre(x, src_key_padding_mask=pad)
        s = x.shape[1]
        y = self.post(y.transpose(0, 1), src_mask=nn.Transformer.generate_square_subsequent_mask(s), is_causal=True).transpose(0, 1)
        return self.dec(y, mem, tgt_key_padding_mask=pad, memory_key_padding_mask=None)


class SDPA(nn.Module):
    def forward(self, q, k, v, kg, vg, lens):
        s = q.shape[2]
        t = k.shape[2]
        keep = torch.arange(t)[None, :] < lens[:, None]
        bmask = keep[:, None, None, :].expand(-1, 1, s, -1)
        fmask = torch.zeros(s, t).masked_fill(torch.ones(s, t, dtype=torch.bool).triu(1), float("-inf"))
        return (F.scaled_dot_product_attention(q, k, v, attn_mask=bmask),
                F.scaled_dot_product_attention(q, q, q, is_causal=True),
                F.scaled_dot_product_attention(q, k, v, attn_mask=fmask[None, None], scale=0.3),
                F.scaled_dot_product_attention(q, kg, vg, enable_gqa=True, attn_mask=bmask),
                F.scaled_dot_product_attention(q, q, q, is_causal=True, enable_gqa=False, scale=0.5))


def sdpa():
    def a(b, s, t):
        return (torch.randn(b, 4, s, 8), torch.randn(b, 4, t, 8), torch.randn(b, 4, t, 8), torch.randn(b, 2, t, 8),
                torch.randn(b, 2, t, 8), torch.tensor([t - 1, t][:1] + [t] * (b - 1)))
    d = {0: AUTO, 2: AUTO}
    return fn(SDPA, a(2, 5, 5), a(3, 7, 7), (d, d, d, d, d, {0: AUTO}))


class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 8, 3, padding="same", dilation=2, groups=2, padding_mode="reflect")
        self.c2 = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), padding_mode="circular")
        self.c3 = nn.Conv3d(4, 4, 3, padding=1, groups=4, padding_mode="replicate")
        self.t1 = nn.ConvTranspose1d(8, 4, 4, stride=3, padding=1, output_padding=2, dilation=1)
        self.t3 = nn.ConvTranspose3d(4, 2, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), output_padding=(0, 1, 1), groups=2)

    def forward(self, x1, x2, x3):
        return (self.t1(self.c1(x1)), self.c2(x2), self.t3(self.c3(x3)), F.max_pool3d(x3, 2, ceil_mode=True),
                F.avg_pool3d(x3, 3, 2, 1, count_include_pad=False), F.avg_pool2d(x2, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                F.max_pool1d(x1, 3, 2, dilation=2), F.lp_pool2d(x2, 2, 2), F.max_pool2d(x2, 3, 1, 1, dilation=2),
                F.local_response_norm(x2, 3), F.instance_norm(x2), F.avg_pool1d(x1, 4, ceil_mode=True))


def convs():
    a = lambda b: (torch.randn(b, 4, 17), torch.randn(b, 4, 9, 11), torch.randn(b, 4, 5, 7, 6))
    return fn(Convs, a(2), a(3), ({0: AUTO},) * 3)


class Video(nn.Module):
    """(2+1)D video block on a dynamic batch and time."""

    def __init__(self):
        super().__init__()
        self.s = nn.Conv3d(3, 8, (1, 3, 3), padding=(0, 1, 1))
        self.t = nn.Conv3d(8, 8, (3, 1, 1), padding=(1, 0, 0))
        self.bn = nn.BatchNorm3d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = F.relu(self.bn(self.t(self.s(x))))
        y = F.avg_pool3d(y, (1, 2, 2))
        return self.fc(y.mean((2, 3, 4)))


class Slicing(nn.Module):
    """Views and index patterns decoders and detectors use."""

    def forward(self, x, i, m):
        return (x[:, 1::2], x[..., -3:], x[:, None, ::-1] if False else x.flip(-1), x[i], x[:, i], x[m], x.masked_select(m[:, None].expand_as(x)),
                x.roll(2, 1), x.roll((1, -1), (0, 1)), x.narrow(1, 1, 3), torch.tensor_split(x, 3, 1)[2], x.chunk(2, 1)[1],
                x.unflatten(1, (2, -1)), x.movedim(0, 1), x.repeat_interleave(2, 1), x.repeat(2, 1), torch.nonzero(x > 0),
                torch.where(x > 0)[1], x.new_zeros(x.shape[0], 2), x.index_select(1, i), torch.triu(x, 1), x.diagonal(0, 0, 1))


class Misc2(nn.Module):
    def forward(self, x, y):
        return (torch.atan2(x, y), torch.hypot(x, y), torch.logaddexp(x, y), torch.xlogy(x.abs(), y.abs()), x.frac(), x.trunc(),
                torch.fmod(x, 0.7), torch.remainder(x, -0.7), torch.copysign(x, y), torch.heaviside(x, y), F.softplus(x, 2, 5),
                F.mish(x), F.celu(x), F.selu(x), F.rrelu(x, training=False), F.glu(torch.cat([x, y], -1)), F.logsigmoid(x),
                F.hardtanh(x, -0.5, 0.5), F.softsign(x), F.tanhshrink(x), F.softshrink(x), F.hardshrink(x), F.threshold(x, 0.1, 2.0),
                F.prelu(x, torch.tensor([0.2])), torch.erfinv(torch.tanh(x) * 0.9), torch.sinc(x), torch.special.expit(x),
                torch.var_mean(x, 1, correction=0)[0], torch.std(x, 0), x.norm(p=3, dim=1), torch.dist(x, y), F.cosine_similarity(x, y),
                F.pairwise_distance(x, y), torch.renorm(x, 2, 0, 1.0), torch.addcmul(x, x, y, value=0.5), torch.lerp(x, y, 0.3),
                torch.amax(x, (0, 1)), torch.aminmax(x).min, torch.nanmean(x), torch.logit(torch.sigmoid(x), 1e-6), x.round(decimals=1))


def programs():
    import transformers as T
    return {
        # decode steps: batched with a padding mask, sliding window, soft caps, MoE, cross-attention cache, static cache
        "llama_batched_decode": bdecode("LlamaConfig", "LlamaForCausalLM"),
        "mistral_sliding_decode": bdecode("MistralConfig", "MistralForCausalLM", sliding_window=4, min_past=4),
        "gemma2_softcap_decode": bdecode("Gemma2Config", "Gemma2ForCausalLM", head_dim=8, sliding_window=4,
                                         attn_logit_softcapping=50.0, final_logit_softcapping=30.0, min_past=4),
        "gemma3_decode": bdecode("Gemma3TextConfig", "Gemma3ForCausalLM", head_dim=8, sliding_window=4,
                                 layer_types=["sliding_attention", "full_attention"], min_past=4),
        "qwen3_moe_decode": bdecode("Qwen3MoeConfig", "Qwen3MoeForCausalLM", head_dim=8, num_experts=4, num_experts_per_tok=2,
                                    moe_intermediate_size=16),
        "olmoe_decode": bdecode("OlmoeConfig", "OlmoeForCausalLM", num_experts=4, num_experts_per_tok=2),
        "granitemoe_decode": bdecode("GraniteMoeConfig", "GraniteMoeForCausalLM", num_local_experts=4, num_experts_per_tok=2),
        "phimoe_decode": bdecode("PhimoeConfig", "PhimoeForCausalLM", num_local_experts=4, num_experts_per_tok=2),
        "llama_static_cache": static_step("LlamaConfig", "LlamaForCausalLM"),
        "whisper_decode_step": whisper_step(),
        # more architectures
        "deepseek_v3": lm("DeepseekV3Config", "DeepseekV3ForCausalLM", n_routed_experts=4, num_experts_per_tok=2, n_group=1, topk_group=1,
                          moe_intermediate_size=16, first_k_dense_replace=1, q_lora_rank=16, kv_lora_rank=16, qk_rope_head_dim=4,
                          qk_nope_head_dim=4, v_head_dim=8, num_key_value_heads=4),
        "jetmoe": lm("JetMoeConfig", "JetMoeForCausalLM", num_local_experts=4, num_experts_per_tok=2, kv_channels=8),
        "mamba": lambda: (_lm("MambaConfig", "MambaForCausalLM", state_size=4, expand=2, conv_kernel=3, time_step_rank=4),
                          (torch.randint(0, 64, (2, 7)),), (torch.randint(0, 64, (3, 7)),), ({0: AUTO},)),
        "mobilevitv2_seg": vision(lambda: T.MobileViTV2ForSemanticSegmentation(T.MobileViTV2Config(
            image_size=64, width_multiplier=0.25, num_labels=5, aspp_out_channels=16)), batch_only=False),
        "dpt_depth": vision(lambda: T.DPTForDepthEstimation(T.DPTConfig(
            image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=4, num_attention_heads=4, intermediate_size=64,
            backbone_out_indices=[0, 1, 2, 3], neck_hidden_sizes=[8, 16, 32, 32], fusion_hidden_size=16, head_in_index=-1)), size=32),
        "siglip_dual": lambda: (T.SiglipModel(T.SiglipConfig(
            text_config=dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                             max_position_embeddings=16),
            vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=32,
                               patch_size=8))),
            (torch.randint(0, 64, (2, 16)), torch.randn(2, 3, 32, 32)), (torch.randint(0, 64, (3, 16)), torch.randn(3, 3, 32, 32)),
            ({0: AUTO}, {0: AUTO})),
        "speech2text_enc": lambda: (Logits(T.Speech2TextModel(T.Speech2TextConfig(
            vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=64, decoder_ffn_dim=64, input_feat_per_channel=8, conv_channels=16, max_source_positions=64,
            max_target_positions=32)).get_encoder(), "last_hidden_state"),
            (torch.randn(2, 24, 8),), (torch.randn(3, 36, 8),), ({0: AUTO, 1: AUTO},)),
        # op-level programs
        "cond_nested_multi": fn(CondMulti, (torch.randn(2, 4) + 1, torch.randn(2, 3) + 1), (torch.randn(3, 4) - 1, torch.randn(3, 3)),
                                ({0: AUTO}, {0: AUTO})),
        "while_loop": fn(WhileLoop, (torch.randn(2, 4),), (torch.randn(3, 4),), ({0: AUTO},)),
        "rnn_states": recurrents(),
        "cell_loop": fn(GRUCellLoop, (torch.randn(2, 4, 6),), (torch.randn(3, 4, 6),), ({0: AUTO},)),
        "interpolate_modes": fn(Interp, (torch.randn(2, 3, 8, 10), torch.randn(2, 2, 3, 4, 5)),
                                (torch.randn(3, 3, 8, 10), torch.randn(3, 2, 3, 4, 5)), ({0: AUTO}, {0: AUTO})),
        "grid_sample_modes": fn(GridSample, (torch.randn(2, 3, 6, 7), torch.rand(2, 4, 5, 2) * 2.4 - 1.2, torch.randn(2, 2, 3, 4, 5),
                                             torch.rand(2, 2, 3, 4, 3) * 2 - 1),
                                (torch.randn(3, 3, 6, 7), torch.rand(3, 4, 5, 2) * 2.4 - 1.2, torch.randn(3, 2, 3, 4, 5),
                                 torch.rand(3, 2, 3, 4, 3) * 2 - 1), ({0: AUTO},) * 4),
        "fold_unfold": fn(FoldUnfold, (torch.randn(2, 3, 8, 10),), (torch.randn(3, 3, 8, 10),), ({0: AUTO},)),
        "sort_topk": fn(Sorts, (torch.randn(5, 8), torch.randint(0, 4, (5, 8))), (torch.randn(7, 8), torch.randint(0, 4, (7, 8))),
                        ({0: AUTO}, {0: AUTO})),
        "scatter_reduce": fn(ScatterReduce, (torch.randn(2, 4), torch.randint(0, 4, (2, 4)), torch.tensor([0, 3, 5])),
                             (torch.randn(3, 4), torch.randint(0, 4, (3, 4)), torch.tensor([1, 2, 4])), ({0: AUTO}, {0: AUTO}, None)),
        "search_cumulative": fn(Search, (torch.randn(2, 6), torch.tensor([-1.0, 0.0, 0.5, 1.5])),
                                (torch.randn(3, 6), torch.tensor([-1.0, 0.0, 0.5, 1.5])), ({0: AUTO}, None)),
        "fft_static_dims": fn(Spectra, (torch.randn(2, 4, 6),), (torch.randn(3, 4, 6),), ({0: AUTO},)),
        "int_bool_paths": int_paths(),
        "fp16_convnet": fn(lambda: HalfConvNet().half(), (torch.randn(2, 3, 16, 16).half(),), (torch.randn(3, 3, 16, 16).half(),),
                           ({0: AUTO},)),
        "einsum_variants": fn(Einsums, (torch.randn(2, 4, 5), torch.randn(2, 5, 3), torch.randn(6)),
                              (torch.randn(3, 4, 5), torch.randn(3, 5, 3), torch.randn(6)), ({0: AUTO}, {0: AUTO}, None)),
        "embeddings": fn(Embeds, (torch.tensor([[0, 3, 11], [5, 0, 2]]),), (torch.tensor([[1, 2, 11], [0, 0, 4], [7, 8, 9]]),),
                         ({0: AUTO},)),
        "mha_weights": mha_weights(),
        "encoder_decoder_layers": fn(EncLayers, (torch.randn(2, 7, 16), C._pad(2, 7), torch.randn(2, 5, 16)),
                                     (torch.randn(3, 9, 16), C._pad(3, 9), torch.randn(3, 4, 16)),
                                     ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})),
        "sdpa_masks": sdpa(),
        "conv_pool_variants": convs(),
        "video_2plus1d": fn(Video, (torch.randn(2, 3, 4, 16, 16),), (torch.randn(3, 3, 6, 16, 16),), ({0: AUTO, 2: AUTO},)),
        "slicing_indexing": fn(Slicing, (torch.randn(4, 6), torch.tensor([0, 2, 3]), torch.tensor([True, False, True, True])),
                               (torch.randn(4, 6), torch.tensor([3, 1, 0]), torch.tensor([False, False, True, True])), None),
        "pointwise_misc": fn(Misc2, (torch.randn(3, 4), torch.randn(3, 4)), (torch.randn(5, 4), torch.randn(5, 4)), ({0: AUTO}, {0: AUTO})),
    }


class PosInterp(nn.Module):
    """A ViT run at another resolution: its position embeddings bicubic-resized to a dynamic grid."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(pixel_values=x, interpolate_pos_encoding=True).last_hidden_state


class UNet(nn.Module):
    """Skip connections resized to the encoder's dynamic H/W (FPN / U-Net decoders)."""

    def __init__(self):
        super().__init__()
        self.d1, self.d2 = nn.Conv2d(3, 8, 3, 2, 1), nn.Conv2d(8, 16, 3, 2, 1)
        self.u1, self.u2 = nn.Conv2d(24, 8, 3, padding=1), nn.Conv2d(11, 4, 3, padding=1)
        self.ps = nn.Conv2d(4, 16, 1)

    def forward(self, x):
        a = F.relu(self.d1(x))
        b = F.relu(self.d2(a))
        y = F.relu(self.u1(torch.cat([F.interpolate(b, size=a.shape[-2:], mode="bilinear", align_corners=False), a], 1)))
        y = self.u2(torch.cat([F.interpolate(y, size=x.shape[-2:], mode="nearest"), x], 1))
        return y, F.pixel_shuffle(self.ps(y), 2), F.interpolate(y, scale_factor=0.5, mode="bicubic"), F.unfold(y, 2, stride=2)


class FlowWarp(nn.Module):
    """RAFT-style backward warp: a pixel grid built from the dynamic H/W, shifted by a flow, grid_sample."""

    def forward(self, img, flow):
        h, w = img.shape[-2:]
        ys, xs = torch.meshgrid(torch.arange(h, dtype=img.dtype), torch.arange(w, dtype=img.dtype), indexing="ij")
        gx = (xs[None] + flow[:, 0]) / (w - 1) * 2 - 1
        gy = (ys[None] + flow[:, 1]) / (h - 1) * 2 - 1
        return F.grid_sample(img, torch.stack([gx, gy], -1), align_corners=True, padding_mode="border")


class Unique(nn.Module):
    def forward(self, i, x):
        u, inv, cnt = torch.unique(i, sorted=True, return_inverse=True, return_counts=True)
        r = torch.repeat_interleave(x[0, :3], i[0].clamp(0, 3) + 1)
        return u, inv, cnt, r, torch.unique(i, dim=None).float().mean(), torch.repeat_interleave(x, 2, 0)


class HalfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv, self.o, self.n = nn.Linear(32, 96), nn.Linear(32, 32), nn.LayerNorm(32)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n(x)).view(b, s, 3, 4, 8).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = x + self.o(a.transpose(1, 2).reshape(b, s, 32))
        return y, torch.softmax(y, -1), F.rms_norm(y, (32,))


class BagOffsets(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(20, 4, mode="sum")
        self.mean = nn.EmbeddingBag(20, 4, mode="mean", include_last_offset=True)

    def forward(self, ids, offs, w):
        return self.bag(ids, offs, per_sample_weights=w), self.mean(ids, offs)


def programs2():
    import transformers as T
    vit = dict(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
    hw = ({0: AUTO, 2: AUTO, 3: AUTO},)
    return {
        "vit_other_resolution": lambda: (PosInterp(T.ViTModel(T.ViTConfig(**vit))), (torch.randn(2, 3, 48, 40),),
                                         (torch.randn(3, 3, 64, 32),), hw),
        "dinov2_other_resolution": lambda: (PosInterp(T.Dinov2Model(T.Dinov2Config(
                                                                                 **{k: v for k, v in vit.items() if k != "intermediate_size"}))),
                                            (torch.randn(2, 3, 48, 40),), (torch.randn(3, 3, 64, 32),), hw),
        "unet_dynamic_hw": fn(UNet, (torch.randn(2, 3, 16, 24),), (torch.randn(3, 3, 32, 16),), hw),
        "flow_warp": fn(FlowWarp, (torch.randn(2, 3, 8, 10), torch.randn(2, 2, 8, 10)), (torch.randn(3, 3, 12, 6), torch.randn(3, 2, 12, 6)),
                        ({0: AUTO, 2: AUTO, 3: AUTO}, {0: AUTO, 2: AUTO, 3: AUTO})),
        "pvt_v2": vision(lambda: T.PvtV2Model(T.PvtV2Config(hidden_sizes=[8, 16, 32, 64], num_attention_heads=[1, 2, 2, 4],
                                                             depths=[1, 1, 1, 1], mlp_ratios=[2, 2, 2, 2])), size=64),
        "wav2vec2_conformer": lambda: (T.Wav2Vec2ConformerModel(T.Wav2Vec2ConformerConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
            conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, position_embeddings_type="rotary",
            conv_depthwise_kernel_size=3)), (torch.randn(2, 800),), (torch.randn(3, 1200),), ({0: AUTO, 1: AUTO},)),
        "unique_repeat": fn(Unique, (torch.tensor([[3, 1, 3], [0, 1, 2]]), torch.randn(2, 4)),
                            (torch.tensor([[2, 2, 5], [5, 0, 0], [1, 1, 1]]), torch.randn(3, 4)), ({0: AUTO}, {0: AUTO})),
        "fp16_attention": fn(lambda: HalfAttention().half(), (torch.randn(2, 5, 32).half(),), (torch.randn(3, 7, 32).half(),),
                             ({0: AUTO, 1: AUTO},)),
        "embedding_bag_offsets": fn(BagOffsets, (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 5]), torch.rand(8)),
                                    (torch.tensor([1, 7, 4, 5, 4, 3, 2, 9, 11, 12]), torch.tensor([0, 2, 6]), torch.rand(10)),
                                    ({0: AUTO}, None, {0: AUTO})),
        "bart_decode_step": lambda: (BartStep(), *bart_step_args()),
    }


class BartStep(nn.Module):
    def __init__(self):
        super().__init__()
        import transformers as T
        self.m = T.BartForConditionalGeneration(T.BartConfig(
            vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64))

    def forward(self, enc, enc_mask, dec, sk, sv, ck, cv):
        from transformers import DynamicCache, EncoderDecoderCache
        self_c, cross_c = DynamicCache(), DynamicCache()
        self_c.update(sk, sv, 0)
        cross_c.update(ck, cv, 0)
        out = self.m(encoder_outputs=(enc,), attention_mask=enc_mask, decoder_input_ids=dec,
                     past_key_values=EncoderDecoderCache(self_c, cross_c), use_cache=True)
        return out.logits, out.past_key_values.self_attention_cache.layers[0].keys


def bart_step_args():
    def a(b, s, p):
        mask = torch.ones(b, s, dtype=torch.long)
        mask[0, -2:] = 0
        return (torch.randn(b, s, 32), mask, torch.randint(0, 64, (b, 1)), torch.randn(b, 4, p, 8), torch.randn(b, 4, p, 8),
                torch.randn(b, 4, s, 8), torch.randn(b, 4, s, 8))
    d = {0: AUTO, 1: AUTO}
    kv = {0: AUTO, 2: AUTO}
    return a(2, 7, 3), a(3, 9, 5), (d, d, {0: AUTO}, kv, kv, kv, kv)


class PaddedPrefill(nn.Module):
    """A left-padded batch prefill: ids and the attention mask, position ids from the mask."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, mask):
        pos = (mask.cumsum(-1) - 1).clamp(min=0)
        return self.m(input_ids=ids, attention_mask=mask, position_ids=pos).logits


def padded_prefill(cfg, model, **kw):
    def build():
        def a(b, s):
            mask = torch.ones(b, s, dtype=torch.long)
            mask[0, :3] = 0
            return torch.randint(0, 64, (b, s)), mask
        return PaddedPrefill(_lm(cfg, model, **kw)), a(2, 7), a(3, 11), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})
    return build


class DiffusionBlock(nn.Module):
    """A diffusion UNet res block: sinusoidal timestep embedding, GroupNorm + SiLU, self-attention over H*W."""

    def __init__(self):
        super().__init__()
        self.t = nn.Linear(16, 8)
        self.n1, self.c1 = nn.GroupNorm(4, 8), nn.Conv2d(8, 8, 3, padding=1)
        self.n2, self.c2 = nn.GroupNorm(4, 8), nn.Conv2d(8, 8, 3, padding=1)
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x, t):
        half = torch.exp(-torch.arange(8, dtype=torch.float32) * (4.0 / 8))
        e = t.float()[:, None] * half[None]
        emb = self.t(torch.cat([e.sin(), e.cos()], -1))
        h = self.c1(F.silu(self.n1(x))) + emb[:, :, None, None]
        h = x + self.c2(F.silu(self.n2(h)))
        b, c, hh, ww = h.shape
        seq = h.flatten(2).transpose(1, 2)
        a = self.attn(seq, seq, seq, need_weights=False)[0]
        return h + a.transpose(1, 2).reshape(b, c, hh, ww)


class HalfOps(nn.Module):
    """fp16 through the ops ONNX Runtime's CPU provider has few fp16 kernels for."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv3d(2, 4, 3, padding=1)
        self.r = nn.GRU(4, 4, batch_first=True)

    def forward(self, x, v, g):
        return (x.sort(-1).values, x.topk(2).indices, x.cumsum(-1), F.interpolate(v[:, :, 0], scale_factor=2, mode="bilinear"),
                F.grid_sample(v[:, :, 0], g, align_corners=False), self.c(v), x.softmax(-1), x.argmax(-1), self.r(x)[0],
                torch.where(x > 0, x, x * 0.1), x.max(-1).values, F.layer_norm(x, (4,)), x.var(-1))


class DetectionOps(nn.Module):
    """torchvision's detection ops: nms, batched_nms, roi_align, box decoding."""

    def forward(self, boxes, scores, feats):
        import torchvision
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        rois = torch.cat([torch.zeros(boxes.shape[0], 1), boxes * 2], 1)
        return keep, torchvision.ops.roi_align(feats, rois, (3, 3), 0.5, 2, aligned=True), torchvision.ops.box_iou(boxes, boxes)


def _boxes(n):
    xy = torch.rand(n, 2) * 6
    return torch.cat([xy, xy + torch.rand(n, 2) * 4 + 0.5], 1)


def programs3():
    hw = {0: AUTO, 2: AUTO, 3: AUTO}
    return {
        "llama_padded_prefill": padded_prefill("LlamaConfig", "LlamaForCausalLM"),
        "gemma3_padded_prefill": padded_prefill("Gemma3TextConfig", "Gemma3ForCausalLM", head_dim=8, sliding_window=4),
        "qwen2_moe_padded_prefill": padded_prefill("Qwen2MoeConfig", "Qwen2MoeForCausalLM", num_experts=4, num_experts_per_tok=2,
                                                   moe_intermediate_size=16, shared_expert_intermediate_size=16),
        "diffusion_block": fn(DiffusionBlock, (torch.randn(2, 8, 6, 4), torch.tensor([10, 500])),
                              (torch.randn(3, 8, 4, 8), torch.tensor([1, 20, 999])), (hw, {0: AUTO})),
        "fp16_op_mix": fn(lambda: HalfOps().half(), (torch.randn(2, 3, 4).half(), torch.randn(2, 2, 3, 6, 6).half(),
                                                     (torch.rand(2, 5, 5, 2) * 2 - 1).half()),
                          (torch.randn(3, 3, 4).half(), torch.randn(3, 2, 3, 6, 6).half(), (torch.rand(3, 5, 5, 2) * 2 - 1).half()),
                          ({0: AUTO},) * 3),
        "detection_ops": fn(DetectionOps, (_boxes(6), torch.rand(6), torch.randn(1, 4, 20, 20)),
                            (_boxes(9), torch.rand(9), torch.randn(1, 4, 20, 20)), ({0: AUTO}, {0: AUTO}, None)),
    }


class CondVariants(nn.Module):
    """torch.cond on a bool input, branches closing over parameters, one module run twice."""

    def __init__(self):
        super().__init__()
        self.l = nn.Linear(4, 4)
        self.w = nn.Parameter(torch.randn(4))

    def gate(self, flag, x):
        return torch.cond(flag, lambda t: self.l(t) * self.w, lambda t: t + self.w, (x,))

    def forward(self, flag, x):
        y = self.gate(flag, x)
        z = self.gate(flag.logical_not(), y)
        return y, z, torch.cond(x.shape[0] > 2, lambda t: t.cumsum(0), lambda t: t.flip(0), (z,))


def programs4():
    import torchvision as tv
    import transformers as T
    return {
        "gpt_oss_decode": bdecode("GptOssConfig", "GptOssForCausalLM", head_dim=8, num_local_experts=4, num_experts_per_tok=2,
                                  sliding_window=4, min_past=4, layer_types=["sliding_attention", "full_attention"]),
        "llama4_text": lm("Llama4TextConfig", "Llama4ForCausalLM", head_dim=8, num_local_experts=4, num_experts_per_tok=1,
                          intermediate_size_mlp=64, attention_chunk_size=4, interleave_moe_layer_step=1, no_rope_layers=[1, 0]),
        "qwen3_next": lm("Qwen3NextConfig", "Qwen3NextForCausalLM", head_dim=8, num_experts=4, num_experts_per_tok=2,
                         moe_intermediate_size=16, shared_expert_intermediate_size=16, linear_num_value_heads=4,
                         linear_num_key_heads=2, linear_key_head_dim=8, linear_value_head_dim=8, linear_conv_kernel_dim=3,
                         layer_types=["linear_attention", "full_attention"]),
        "cohere2_sliding": lm("Cohere2Config", "Cohere2ForCausalLM", sliding_window=4, layer_types=["sliding_attention", "full_attention"]),
        "pegasus": lambda: (C.Seq2Seq(T.PegasusForConditionalGeneration(T.PegasusConfig(
            vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64))),
            *[(torch.randint(0, 64, (b, s)), torch.ones(b, s, dtype=torch.long), torch.randint(0, 64, (b, t))) for b, s, t in ((2, 7, 5), (3, 9, 6))],
            ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})),
        "videomae": lambda: (Logits(T.VideoMAEModel(T.VideoMAEConfig(image_size=32, patch_size=8, num_frames=4, tubelet_size=2,
                                                                      hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                                      intermediate_size=64)), "last_hidden_state"),
                             (torch.randn(2, 4, 3, 32, 32),), (torch.randn(3, 4, 3, 32, 32),), ({0: AUTO},)),
        "parakeet_encoder": lambda: (Logits(T.ParakeetEncoder(T.ParakeetEncoderConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_mel_bins=16,
            subsampling_conv_channels=8, conv_kernel_size=3)), "last_hidden_state"),
            (torch.randn(2, 40, 16),), (torch.randn(3, 56, 16),), ({0: AUTO, 1: AUTO},)),
        "lraspp": vision(lambda: tv.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5),
                         batch_only=False),
        "fcn_resnet50": vision(lambda: tv.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None, num_classes=5,
                                                                           aux_loss=True), batch_only=False),
        "cond_variants": fn(CondVariants, (torch.tensor(True), torch.randn(3, 4)), (torch.tensor(False), torch.randn(2, 4)),
                            (None, {0: AUTO})),
    }


class LoopMoE(nn.Module):
    """The classic hand-written sparse MoE (transformers 4's Mixtral block): one_hot routing mask,
    torch.where per expert, index_add_ of the weighted expert outputs."""

    def __init__(self, d=16, e=4, k=2):
        super().__init__()
        self.k, self.e = k, e
        self.gate = nn.Linear(d, e, bias=False)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(d, 32), nn.SiLU(), nn.Linear(32, d)) for _ in range(e))

    def forward(self, x):
        b, s, d = x.shape
        h = x.view(-1, d)
        w = F.softmax(self.gate(h), dim=1, dtype=torch.float)
        w, sel = torch.topk(w, self.k, dim=-1)
        w = (w / w.sum(-1, keepdim=True)).to(h.dtype)
        out = torch.zeros_like(h)
        mask = F.one_hot(sel, num_classes=self.e).permute(2, 1, 0)
        for i in range(self.e):
            idx, top = torch.where(mask[i])
            cur = h[None, top].reshape(-1, d)
            out.index_add_(0, top, self.experts[i](cur) * w[top, idx, None])
        return out.view(b, s, d)


class IntOps(nn.Module):
    """Integer tensors through sort / topk / scatter / resampling / padding, as preprocessing code runs them."""

    def forward(self, img, ids, x):
        i32 = ids.to(torch.int32)
        return (F.interpolate(img, scale_factor=2, mode="nearest"), F.pad(img.float(), (1, 2, 0, 1), mode="reflect"),
                ids.sort(dim=-1, descending=True, stable=True).values, i32.topk(2).values, ids.argsort(dim=-1, stable=True),
                torch.zeros(ids.shape[0], 6, dtype=torch.long).scatter_reduce(1, ids % 6, ids, "amax", include_self=True),
                (ids > 2).cumsum(-1), F.embedding(i32 % 5, torch.arange(20.0).view(5, 4)), torch.unique(ids, dim=1).float().sum(),
                ids.max(-1).values, img.flip(-1), img.to(torch.float32).div(255).mean((2, 3)), x.gather(1, i32.long() % 4),
                torch.bincount(ids.flatten(), minlength=8), ids.float().median(1).values)


def programs5():
    # (Mask2Former's model class needs scipy, which the venv does not have.)
    return {
        "int_preprocessing": fn(IntOps, (torch.randint(0, 255, (2, 3, 4, 5), dtype=torch.uint8), torch.randint(0, 8, (2, 6)),
                                         torch.randn(2, 4)),
                                (torch.randint(0, 255, (3, 3, 4, 5), dtype=torch.uint8), torch.randint(0, 8, (3, 6)), torch.randn(3, 4)),
                                ({0: AUTO},) * 3),
        "loop_moe": fn(LoopMoE, (torch.randn(2, 5, 16),), (torch.randn(3, 7, 16),), ({0: AUTO, 1: AUTO},)),
    }


# ------------------------------------------------------------------ module records
def _unrecorded(path):
    """How many of the file's top-level nodes carry no module record."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    return sum(1 for n in m.graph.node if not any(p.key == "modelexport.module" for p in n.metadata_props)), len(m.graph.node)


_coverage_run = C.run


def run(name, build, work, skip_anchor):
    """pt2_coverage.run(), then the module-record check of each file that matched."""
    try:
        row = _coverage_run(name, build, work, skip_anchor)
    except Exception as e:  # torch's own failure (export, decompositions, eager): a row that says which.
        # (An ONNX Runtime shape error here means torch.export pinned a dim the program meant dynamic.)
        import traceback
        where = traceback.extract_tb(e.__traceback__)[-1]
        msg = f"torch: {type(e).__name__}: {' '.join(str(e).split())[:150]} ({os.path.basename(where.filename)}:{where.lineno})"
        return {("mx", "training"): ("torch fails", msg), ("mx", "core"): ("torch fails", "")}
    for level in ("training", "core"):
        key = ("mx", level)
        out = os.path.join(work, f"{name}.{level}.mx.onnx")
        if key in row and row[key][0] == "ok" and os.path.exists(out):
            missing, total = _unrecorded(out)
            if missing:
                row[key] = ("unrecorded", f"{missing} of {total} nodes without a module record; {row[key][1]}")
    return row


if __name__ == "__main__":
    C.run = run  # C.main() calls run() through its module
    sys.exit(C.main(lambda: {**programs(), **programs2(), **programs3(), **programs4(), **programs5()}, anchor_by_default=False))
