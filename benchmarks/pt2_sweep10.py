#!/usr/bin/env python3
"""Sweep 10: programs of the kinds issue 28 is judged on that the earlier
sweeps (pt2_coverage.py, pt2_coverage_wider.py, pt2_sweep.py) do not hold:
KV-cache decode steps of nine more decoder families (DynamicCache, batched
with a padding mask), MoE (Mixtral / Qwen2-MoE decode steps, DBRX, MiniMax,
ERNIE 4.5 MoE, DeepSeek-V2, Switch Transformers and NLLB-MoE seq2seq with
expert capacity), seq2seq (mT5, UMT5, Marian, M2M100, BlenderbotSmall,
mBART, ProphetNet, LongT5, a Marian decode step with an
EncoderDecoderCache), encoders (XLM-R, Funnel, MPNet, RoFormer, ESM,
BigBird full attention, Megatron-BERT, RemBERT, ConvBERT, DeBERTa),
vision (SwinV2, Data2Vec-vision, DINOv2 with registers, YOLOS, ViTDet's
window attention, FocalNet, CvT, EfficientNet, MobileNet V1, MaxViT, Swin
on a dynamic H/W), segmentation heads (UperNet on Swin, BEiT + UperHead,
MobileViT DeepLabV3), video (TimeSformer, ViViT, MC3, R(2+1)D, Video Swin),
speech (SEW, SEW-D, UniSpeech, UniSpeech-SAT, Data2Vec-audio, AST), dual
encoders (OWL-ViT, BLIP, Chinese-CLIP) and op-level programs (torch.cond
inside loops, while_loop with a cond body, scan, multi-layer bidirectional
GRU with h0, packed sequences, antialiased resampling on dynamic H/W,
searchsorted with a sorter and histc over the data range, scatter_reduce /
index_reduce in 3-D, STFT / ISTFT variants, FFT over a dynamic length,
sorting along a dynamic dim, a sort-dispatched MoE, fp16 and bf16 blocks).

Each goes through pt2_sweep.run() (pt2_coverage.run() plus the module-record
check): saved as exported (TRAINING) and after run_decompositions() (core),
converted by `modelexport export`, checked in ONNX Runtime at two shapes
against eager PyTorch, every node with its module record.

    /work/venvs/pt2/bin/python benchmarks/pt2_sweep10.py [--only a,b] [--anchor] [--markdown FILE]

PT2_SWEEP_JSON=FILE also writes the rows as JSON. Results: docs/pt2-sweep10.md.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pt2_coverage as C  # noqa: E402
import pt2_coverage_wider as W  # noqa: E402
import pt2_sweep as S  # noqa: E402
from pt2_coverage import AUTO, _lm, fn, lm, vision  # noqa: E402

BD = {0: AUTO, 1: AUTO}
HW = {0: AUTO, 2: AUTO, 3: AUTO}


def _T():
    import transformers as T
    return T


def hfm(model, cfg, a, b, dyn, wrap=None, **kw):
    def build():
        T = _T()
        m = getattr(T, model)(getattr(T, cfg)(**kw))
        return (S.Logits(m, wrap) if wrap else m), a, b, dyn
    return build


# ------------------------------------------------------------------ seq2seq
S2S = dict(vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
           encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64)
T5 = dict(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, decoder_start_token_id=0)


def seq2seq(model, cfg, **kw):
    def build():
        T = _T()
        m = getattr(T, model)(getattr(T, cfg)(**kw))

        def a(b, s, t):
            mask = torch.ones(b, s, dtype=torch.long)
            mask[0, -2:] = 0
            return torch.randint(3, 64, (b, s)), mask, torch.randint(3, 64, (b, t))
        return C.Seq2Seq(m), a(2, 7, 5), a(3, 9, 6), (BD, BD, BD)
    return build


class CrossCacheStep(nn.Module):
    """An encoder-decoder decode step: encoder states and mask, one token,
    an EncoderDecoderCache (self cache of dynamic length, cross cache over
    the source), every layer's self cache out."""

    def __init__(self, m, n):
        super().__init__()
        self.m, self.n = m, n

    def forward(self, enc, enc_mask, dec, *kv):
        from transformers import DynamicCache, EncoderDecoderCache
        self_c, cross_c = DynamicCache(), DynamicCache()
        for i in range(self.n):
            self_c.update(kv[4 * i], kv[4 * i + 1], i)
            cross_c.update(kv[4 * i + 2], kv[4 * i + 3], i)
        out = self.m(encoder_outputs=(enc,), attention_mask=enc_mask, decoder_input_ids=dec,
                     past_key_values=EncoderDecoderCache(self_c, cross_c), use_cache=True)
        res = [out.logits]
        for layer in out.past_key_values.self_attention_cache.layers:
            res += [layer.keys, layer.values]
        return tuple(res)


def cross_step(model, cfg, n=2, **kw):
    def build():
        T = _T()
        m = getattr(T, model)(getattr(T, cfg)(**kw))

        def a(b, s, p):
            mask = torch.ones(b, s, dtype=torch.long)
            mask[0, -2:] = 0
            kv = []
            for _ in range(n):
                kv += [torch.randn(b, 4, p, 8), torch.randn(b, 4, p, 8), torch.randn(b, 4, s, 8), torch.randn(b, 4, s, 8)]
            return (torch.randn(b, s, 32), mask, torch.randint(3, 64, (b, 1))) + tuple(kv)
        past = torch.export.Dim("past", min=1, max=40)
        src = torch.export.Dim("src", min=2, max=40)
        batch = torch.export.Dim("batch", min=1, max=8)
        kvd = tuple(({0: batch, 2: past} if j % 4 < 2 else {0: batch, 2: src}) for j in range(4 * n))
        return CrossCacheStep(m, n), a(2, 7, 3), a(3, 9, 5), ({0: batch, 1: src}, {0: batch, 1: src}, {0: batch}, kvd)
    return build


def funnel():
    T = _T()
    m = T.FunnelModel(T.FunnelConfig(vocab_size=64, block_sizes=[1, 1], d_model=32, n_head=4, d_head=8, d_inner=64,
                                     num_decoder_layers=1))
    mk = lambda b, s: (torch.randint(1, 64, (b, s)), torch.ones(b, s, dtype=torch.long))
    return m, mk(2, 8), mk(3, 8), ({0: AUTO}, {0: AUTO})  # torch.export pins the pooled sequence


# ------------------------------------------------------------------ vision / video / speech
VIT = dict(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
W2V = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
           conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)


def speech(model, cfg, **kw):
    return hfm(model, cfg, (torch.randn(2, 800),), (torch.randn(3, 1200),), (BD,), wrap="last_hidden_state", **{**W2V, **kw})


def maxvit():
    from torchvision.models.maxvit import MaxVit
    return MaxVit(input_size=(64, 64), stem_channels=8, partition_size=4, block_channels=[16, 32], block_layers=[1, 1], head_dim=8,
                  stochastic_depth_prob=0.0, num_classes=5)


def tvvideo(name):
    def build():
        import torchvision as tv
        return getattr(tv.models.video, name)(weights=None, num_classes=5), (torch.randn(2, 3, 4, 32, 32),), \
            (torch.randn(3, 3, 4, 32, 32),), ({0: AUTO},)
    return build


class DualEncoder(nn.Module):
    """Text and image towers of a contrastive model: both embeddings and the logits."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, mask, pixels):
        out = self.m(input_ids=ids, attention_mask=mask, pixel_values=pixels)
        return out.logits_per_image, out.text_embeds, out.image_embeds


def dual(model, cfg, text, vision_cfg, seq=(7, 9), **kw):
    def build():
        T = _T()
        m = getattr(T, model)(getattr(T, cfg)(text_config=text, vision_config=vision_cfg, **kw))

        def a(b, s):
            mask = torch.ones(b, s, dtype=torch.long)
            mask[0, -2:] = 0
            return torch.randint(3, 64, (b, s)), mask, torch.randn(b, 3, 32, 32)
        return DualEncoder(m), a(2, seq[0]), a(3, seq[1]), (BD, BD, {0: AUTO})
    return build


TEXT = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=32)
VISION = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=32, patch_size=8)


# ------------------------------------------------------------------ op programs
class CondInLoop(nn.Module):
    """torch.cond in an unrolled loop (a gate per step, a cond nested in a branch)."""

    def __init__(self):
        super().__init__()
        self.cells = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x):
        for i, cell in enumerate(self.cells):
            def hi(t, cell=cell):
                return torch.cond(t.mean() > 0.5, lambda u: cell(u) * 0.5, lambda u: cell(u).tanh(), (t,))

            def lo(t, cell=cell):
                return t - cell(t).sigmoid()
            x = torch.cond(x.sum() > i - 1, hi, lo, (x,))
        return x


class WhileCond(nn.Module):
    """torch.while_loop whose body holds a torch.cond."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop

        def cond(i, h):
            return i < 4

        def body(i, h):
            h = torch.cond(h.sum() > 0, lambda t: self.a(t).tanh(), lambda t: self.b(t).relu() + 0.1, (h,))
            return i + 1, h
        return while_loop(cond, body, (torch.tensor(0), x))[1]


class ScanRnn(nn.Module):
    """torch scan: an Elman RNN over time with a carried state and stacked outputs."""

    def __init__(self):
        super().__init__()
        self.wx, self.wh = nn.Linear(6, 8), nn.Linear(8, 8, bias=False)

    def forward(self, x):
        from torch._higher_order_ops.scan import scan

        def step(h, xt):
            h = torch.tanh(self.wx(xt) + self.wh(h))
            return h, h * 2
        h0 = torch.zeros(x.shape[1], 8)
        last, ys = scan(step, h0, x)
        return last, ys


class AssocScan(nn.Module):
    """associative_scan: combine_mode="generic" (traced into ordinary ops) and the default "pointwise" (the HOP)."""

    def forward(self, x):
        from torch._higher_order_ops.associative_scan import associative_scan
        return (associative_scan(lambda a, b: a + b, x, dim=1), associative_scan(torch.maximum, x, dim=0),
                associative_scan(lambda a, b: a * b, x, dim=1, reverse=True))


class AssocScanGeneric(nn.Module):
    def forward(self, x):
        from torch._higher_order_ops.associative_scan import associative_scan
        return associative_scan(lambda a, b: a + b, x, dim=1, combine_mode="generic")


class DeepGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 8, 3, bidirectional=True, dropout=0.1)
        self.lstm = nn.LSTM(16, 5, 3, bias=False, batch_first=True, bidirectional=True)

    def forward(self, x, h0):
        y, h = self.gru(x, h0)
        z, (hl, cl) = self.lstm(y.transpose(0, 1))
        return y, h, z, hl, cl


class Packed(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, batch_first=True, bidirectional=True)

    def forward(self, x, lengths):
        p = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        y, (h, c) = self.lstm(p)
        y, _ = nn.utils.rnn.pad_packed_sequence(y, batch_first=True, total_length=x.shape[1])
        return y, h


class Antialias(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=0.3, mode="bilinear", antialias=True),
                F.interpolate(x, size=(5, 7), mode="bicubic", antialias=True),
                F.interpolate(x, scale_factor=(0.5, 0.25), mode="bilinear", antialias=True),
                F.interpolate(x, scale_factor=1.5, mode="bilinear", antialias=True),
                F.interpolate(x, scale_factor=0.7, mode="bicubic", antialias=False, align_corners=True),
                F.adaptive_avg_pool2d(x, (3, 5)), F.adaptive_max_pool2d(x, (4, 3)))


class GridDyn(nn.Module):
    """grid_sample with a dynamic input H/W and a dynamic grid size."""

    def forward(self, x, g):
        return (F.grid_sample(x, g, mode="bilinear", padding_mode="reflection", align_corners=False),
                F.grid_sample(x, g, mode="bicubic", padding_mode="border", align_corners=True),
                F.grid_sample(x, g, mode="nearest", padding_mode="zeros", align_corners=False))


class SearchHist(nn.Module):
    def forward(self, x, unsorted, q, ints):
        sorter = unsorted.argsort(-1)
        return (torch.searchsorted(unsorted, q, sorter=sorter), torch.searchsorted(unsorted, q, side="right", sorter=sorter),
                torch.histc(x, bins=5), torch.histc(x, bins=4, min=0, max=0), torch.bucketize(ints, torch.tensor([0, 3, 5, 9])),
                torch.searchsorted(torch.tensor([-1.0, 0.0, 1.0]), x, right=True, out_int32=True),
                torch.bucketize(x, torch.tensor([-0.5, 0.5]), out_int32=True))


class ScatterReduce3d(nn.Module):
    def forward(self, x, idx, rows):
        base = torch.full((x.shape[0], 5, 4), 0.5)
        outs = []
        for red in ("sum", "prod", "mean", "amax", "amin"):
            outs.append(base.scatter_reduce(1, idx, x, red, include_self=False))
            outs.append(base.scatter_reduce(2, idx[..., :3] % 4, x[..., :3], red))
        for red in ("prod", "mean", "amax", "amin"):
            outs.append(base.index_reduce(1, rows, x[:, :3], red, include_self=False))
            outs.append(base.index_reduce(2, rows % 4, torch.cat([x, x[:, :1]], 1)[:, :, :3], red))
        outs.append(base.scatter(1, idx, x, reduce="multiply"))
        outs.append(base[0].index_put((rows % 5,), x[0, :3, :4], accumulate=True))
        outs.append(torch.zeros(6).index_put_((idx.flatten() % 6,), x.flatten(), accumulate=True))
        return tuple(outs)


class StftVariants(nn.Module):
    def forward(self, x):
        w = torch.hann_window(16)
        s1 = torch.stft(x, 16, hop_length=4, window=w, center=False, onesided=False, return_complex=True)
        s2 = torch.stft(x, 16, hop_length=8, win_length=12, window=torch.hamming_window(12), normalized=True, return_complex=True,
                        pad_mode="constant")
        s3 = torch.stft(x, 16, hop_length=4, window=w, return_complex=True)
        y = torch.istft(s3, 16, hop_length=4, window=w, length=x.shape[-1])
        y2 = torch.istft(s2, 16, hop_length=8, win_length=12, window=torch.hamming_window(12), normalized=True)
        return torch.view_as_real(s1), s2.abs(), y, y2


class FftDynamic(nn.Module):
    """FFTs along a dynamic length."""

    def forward(self, x):
        r = torch.fft.rfft(x, dim=-1)
        return (r.abs(), torch.fft.irfft(r, n=x.shape[-1], dim=-1), torch.view_as_real(torch.fft.fft(x, norm="forward")),
                torch.fft.ifft(torch.fft.fft(x)).real, torch.view_as_real(torch.fft.ihfft(x).resolve_conj()), torch.fft.rfft(x, dim=0).abs())


class SortDynamic(nn.Module):
    def forward(self, x, i):
        v, idx = x.sort(dim=-1, descending=True, stable=True)
        k = min(3, x.shape[-1])
        return (v, idx, x.topk(k, -1).values, x.argsort(dim=-1, stable=True), i.to(torch.int32).sort(-1).values, x.argmax(-1),
                torch.topk(x, 2, dim=0, largest=False).indices, x.sort(0).values, (x > 0).sort(dim=-1, stable=True).indices)


class SortedMoE(nn.Module):
    """Token-choice MoE dispatched by sorting token copies by expert; combined with index_add."""

    def __init__(self, d=16, e=4, k=2):
        super().__init__()
        self.k, self.e = k, e
        self.router = nn.Linear(d, e, bias=False)
        self.w1 = nn.Parameter(torch.randn(e, d, 32) * 0.1)
        self.w2 = nn.Parameter(torch.randn(e, 32, d) * 0.1)

    def forward(self, x):
        b, s, d = x.shape
        h = x.reshape(-1, d)
        p, sel = self.router(h).softmax(-1).topk(self.k, -1)
        flat = sel.flatten()
        order = flat.argsort(stable=True)
        tok = order // self.k
        xs = h[tok]
        w1, w2 = self.w1[flat[order]], self.w2[flat[order]]
        ys = torch.bmm(F.gelu(torch.bmm(xs[:, None], w1)), w2)[:, 0] * p.flatten()[order, None]
        out = torch.zeros_like(h).index_add(0, tok, ys)
        counts = torch.bincount(flat, minlength=self.e)
        return out.view(b, s, d), counts


class GruAttnSeq2Seq(nn.Module):
    """A GRU encoder and a GRUCell decoder with additive (Bahdanau) attention, teacher-forced."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.enc = nn.GRU(8, 8, batch_first=True, bidirectional=True)
        self.dec = nn.GRUCell(8 + 16, 16)
        self.wa, self.ua, self.va = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 1)
        self.out = nn.Linear(16, 20)

    def forward(self, src, tgt):
        mem, h = self.enc(self.emb(src))
        s = torch.cat([h[0], h[1]], -1)
        outs = []
        for t in range(tgt.shape[1]):
            e = self.va(torch.tanh(self.wa(mem) + self.ua(s)[:, None])).squeeze(-1)
            ctx = (e.softmax(-1)[..., None] * mem).sum(1)
            s = self.dec(torch.cat([self.emb(tgt[:, t]), ctx], -1), s)
            outs.append(self.out(s))
        return torch.stack(outs, 1)


class Bf16Block(nn.Module):
    """An fp32 model with a bf16 transformer block inside (weights bf16)."""

    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(16, 32)
        self.blk = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, norm_first=True, dropout=0.0).to(torch.bfloat16)
        self.head = nn.Linear(32, 8)

    def forward(self, x):
        y = self.blk(self.inp(x).to(torch.bfloat16))
        return self.head(y.float()), y.float().softmax(-1)


class Bf16Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1).to(torch.bfloat16)
        self.bn = nn.BatchNorm2d(8).to(torch.bfloat16)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=4).to(torch.bfloat16)

    def forward(self, x):
        y = F.silu(self.bn(self.c1(x.to(torch.bfloat16))))
        y = F.interpolate(self.c2(y), scale_factor=2, mode="nearest") + y
        return y.float(), F.adaptive_avg_pool2d(y, 1).flatten(1).float()


class AutocastBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.n = nn.Linear(16, 32), nn.Linear(32, 16), nn.LayerNorm(32)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = F.gelu(self.n(self.l1(x)))
            a = torch.bmm(h, h.transpose(1, 2)).softmax(-1)
            y = self.l2(torch.bmm(a, h))
        return y.float() + x


class HalfLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = _lm("LlamaConfig", "LlamaForCausalLM").half()

    def forward(self, ids):
        return self.m(input_ids=ids).logits


def programs():
    T = _T()
    bd = S.bdecode
    p = {
        # ---- KV-cache decode steps (DynamicCache, batched, left-padded mask)
        "gptj_decode": bd("GPTJConfig", "GPTJForCausalLM", kvh=4, rotary_dim=4),
        "gpt_neox_decode": bd("GPTNeoXConfig", "GPTNeoXForCausalLM", kvh=4, rotary_pct=0.5),
        "falcon_decode": bd("FalconConfig", "FalconForCausalLM", kvh=4, num_kv_heads=4, new_decoder_architecture=True),
        "bloom_decode": bd("BloomConfig", "BloomForCausalLM", kvh=4, n_head=4, n_layer=2),
        "phi_decode": bd("PhiConfig", "PhiForCausalLM", partial_rotary_factor=0.5),
        "stablelm_decode": bd("StableLmConfig", "StableLmForCausalLM", partial_rotary_factor=0.5),
        "starcoder2_decode": bd("Starcoder2Config", "Starcoder2ForCausalLM"),
        "olmo2_decode": bd("Olmo2Config", "Olmo2ForCausalLM"),
        "opt_decode": bd("OPTConfig", "OPTForCausalLM", kvh=4, ffn_dim=64, word_embed_proj_dim=32),
        "qwen2_decode": bd("Qwen2Config", "Qwen2ForCausalLM"),
        "cohere_decode": bd("CohereConfig", "CohereForCausalLM"),
        # ---- MoE
        "mixtral_batched_decode": bd("MixtralConfig", "MixtralForCausalLM", num_local_experts=4, num_experts_per_tok=2),
        "qwen2_moe_decode": bd("Qwen2MoeConfig", "Qwen2MoeForCausalLM", num_experts=4, num_experts_per_tok=2,
                               moe_intermediate_size=16, shared_expert_intermediate_size=16),
        "dbrx": lambda: (T.DbrxForCausalLM(T.DbrxConfig(
            vocab_size=64, d_model=32, n_heads=4, n_layers=2, max_seq_len=64,
            attn_config=dict(kv_n_heads=2, clip_qkv=8.0, rope_theta=10000.0), ffn_config=dict(ffn_hidden_size=32, moe_num_experts=4, moe_top_k=2),
            use_cache=False)), (torch.randint(0, 64, (2, 7)),), (torch.randint(0, 64, (3, 11)),), (BD,)),
        # (the lightning attention's block count is specialised by torch.export: both shapes in 2 blocks)
        "minimax": lambda: (_lm("MiniMaxConfig", "MiniMaxForCausalLM", head_dim=8, num_local_experts=4, num_experts_per_tok=2,
                                block_size=4, layer_types=["linear_attention", "full_attention"]),
                            (torch.randint(0, 64, (2, 7)),), (torch.randint(0, 64, (3, 6)),), (BD,)),
        "ernie4_5_moe": lm("Ernie4_5_MoeConfig", "Ernie4_5_MoeForCausalLM", moe_num_experts=4, moe_k=2, moe_intermediate_size=16,
                           moe_num_shared_experts=1, moe_layer_start_index=0, pad_token_id=0),
        "deepseek_v2": lm("DeepseekV2Config", "DeepseekV2ForCausalLM", n_routed_experts=4, num_experts_per_tok=2,
                          moe_intermediate_size=16, n_shared_experts=1, first_k_dense_replace=1, q_lora_rank=None, kv_lora_rank=16,
                          qk_rope_head_dim=4, qk_nope_head_dim=4, v_head_dim=8, num_key_value_heads=4),
        "switch_transformers": seq2seq("SwitchTransformersForConditionalGeneration", "SwitchTransformersConfig",
                                       **{**T5, "num_decoder_layers": 2, "num_experts": 4, "expert_capacity": 8,
                                          "num_sparse_encoder_layers": 1, "num_sparse_decoder_layers": 1}),
        "nllb_moe": seq2seq("NllbMoeForConditionalGeneration", "NllbMoeConfig", **S2S, num_experts=4, expert_capacity=8,
                            encoder_sparse_step=1, decoder_sparse_step=1),
        # ---- seq2seq
        "mt5": seq2seq("MT5ForConditionalGeneration", "MT5Config", **T5),
        "umt5": seq2seq("UMT5ForConditionalGeneration", "UMT5Config", **T5),
        "longt5_local": seq2seq("LongT5ForConditionalGeneration", "LongT5Config", **T5, local_radius=2),
        "marian": seq2seq("MarianMTModel", "MarianConfig", **S2S, decoder_start_token_id=2, pad_token_id=1),
        "m2m100": seq2seq("M2M100ForConditionalGeneration", "M2M100Config", **S2S),
        "blenderbot_small": seq2seq("BlenderbotSmallForConditionalGeneration", "BlenderbotSmallConfig", **S2S),
        "mbart": seq2seq("MBartForConditionalGeneration", "MBartConfig", **S2S),
        "prophetnet": seq2seq("ProphetNetForConditionalGeneration", "ProphetNetConfig", vocab_size=64, hidden_size=32,
                              encoder_ffn_dim=64, num_encoder_layers=1, num_encoder_attention_heads=4, decoder_ffn_dim=64,
                              num_decoder_layers=1, num_decoder_attention_heads=4, max_position_embeddings=64, num_buckets=8,
                              relative_max_distance=16),
        "marian_decode_step": cross_step("MarianMTModel", "MarianConfig", **{**S2S, "decoder_layers": 2},
                                         decoder_start_token_id=2, pad_token_id=1),
        # ---- encoders
        "xlm_roberta": W.enc("XLMRobertaModel", "XLMRobertaConfig", pad_token_id=0),
        "funnel": funnel,
        "mpnet": W.enc("MPNetModel", "MPNetConfig", pad_token_id=0),
        "roformer": W.enc("RoFormerModel", "RoFormerConfig", embedding_size=32),
        "esm": W.enc("EsmModel", "EsmConfig", pad_token_id=0, mask_token_id=3, position_embedding_type="rotary"),
        "bigbird_full": W.enc("BigBirdModel", "BigBirdConfig", attention_type="original_full"),
        "megatron_bert": W.enc("MegatronBertModel", "MegatronBertConfig"),
        "rembert": W.enc("RemBertModel", "RemBertConfig", input_embedding_size=16, output_embedding_size=16),
        "convbert": W.enc("ConvBertModel", "ConvBertConfig", embedding_size=32, head_ratio=2, conv_kernel_size=3),
        "deberta": W.enc("DebertaModel", "DebertaConfig", relative_attention=True, pos_att_type=["p2c", "c2p"]),
        # ---- vision, window attention, segmentation heads
        "swinv2": hfm("Swinv2Model", "Swinv2Config", (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), ({0: AUTO},),
                      image_size=32, patch_size=2, embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=4),
        "swin_dynamic_hw": hfm("SwinModel", "SwinConfig", (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 48, 48),), (HW,),
                               image_size=32, patch_size=2, embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=4),
        "vitdet_windows": hfm("VitDetModel", "VitDetConfig", (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), ({0: AUTO},),
                              wrap="last_hidden_state", image_size=32, pretrain_image_size=32, patch_size=4, hidden_size=32,
                              num_hidden_layers=2, num_attention_heads=4, window_block_indices=[0], window_size=4,
                              use_relative_position_embeddings=True, residual_block_indices=[1]),
        "data2vec_vision": hfm("Data2VecVisionModel", "Data2VecVisionConfig", (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),),
                               ({0: AUTO},), **VIT, use_relative_position_bias=True),
        "dinov2_registers": hfm("Dinov2WithRegistersModel", "Dinov2WithRegistersConfig", (torch.randn(2, 3, 32, 32),),
                                (torch.randn(3, 3, 48, 48),), (HW,), wrap="last_hidden_state",
                                **{k: v for k, v in VIT.items() if k != "intermediate_size"}, num_register_tokens=4),
        "yolos": hfm("YolosForObjectDetection", "YolosConfig", (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), ({0: AUTO},),
                     **{**VIT, "image_size": [32, 32]}, num_detection_tokens=5, num_labels=3),
        "focalnet": hfm("FocalNetModel", "FocalNetConfig", (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), ({0: AUTO},),
                        image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], focal_levels=[2, 2], focal_windows=[3, 3]),
        "cvt": hfm("CvtModel", "CvtConfig", (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), ({0: AUTO},),
                   wrap="last_hidden_state", embed_dim=[8, 16, 32], num_heads=[1, 2, 2], depth=[1, 2, 3],
                   patch_sizes=[7, 3, 3], patch_stride=[4, 2, 2], patch_padding=[2, 1, 1], mlp_ratio=[2.0] * 3,
                   attention_drop_rate=[0.0] * 3, drop_rate=[0.0] * 3, drop_path_rate=[0.0] * 3, qkv_bias=[True] * 3,
                   cls_token=[False, False, True], qkv_projection_method=["dw_bn"] * 3, kernel_qkv=[3] * 3,
                   padding_kv=[1] * 3, stride_kv=[2] * 3, padding_q=[1] * 3, stride_q=[1] * 3),
        "efficientnet_hf": W.hfvision("EfficientNetModel", "EfficientNetConfig", size=64, image_size=64, width_coefficient=0.25,
                                      depth_coefficient=0.3, hidden_dim=320),
        "mobilenet_v1_hf": W.hfvision("MobileNetV1Model", "MobileNetV1Config", size=64, depth_multiplier=0.25),
        "maxvit": vision(maxvit, size=64),
        "upernet_swin": vision(lambda: T.UperNetForSemanticSegmentation(T.UperNetConfig(
            backbone_config=dict(model_type="swin", image_size=64, patch_size=4, embed_dim=16, depths=[1, 1, 1, 1],
                                 num_heads=[1, 2, 2, 4], window_size=2, out_features=["stage1", "stage2", "stage3", "stage4"]),
            hidden_size=16, auxiliary_in_channels=64, num_labels=3)), batch_only=False),
        "beit_segmentation": vision(lambda: T.BeitForSemanticSegmentation(T.BeitConfig(
            **{**VIT, "num_hidden_layers": 4}, out_indices=[0, 1, 2, 3], use_relative_position_bias=True, num_labels=3,
            pool_scales=[1, 2], auxiliary_channels=16, use_auxiliary_head=False)), size=32),
        "mobilevit_deeplab": vision(lambda: T.MobileViTForSemanticSegmentation(T.MobileViTConfig(
            image_size=64, hidden_sizes=[32, 48, 64], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64], num_labels=5,
            aspp_out_channels=16)), batch_only=False),
        # ---- video
        "timesformer": hfm("TimesformerModel", "TimesformerConfig", (torch.randn(2, 4, 3, 32, 32),), (torch.randn(3, 4, 3, 32, 32),),
                           ({0: AUTO},), wrap="last_hidden_state", **VIT, num_frames=4),
        "vivit": hfm("VivitModel", "VivitConfig", (torch.randn(2, 4, 3, 32, 32),), (torch.randn(3, 4, 3, 32, 32),), ({0: AUTO},),
                     wrap="last_hidden_state", **{k: v for k, v in VIT.items() if k != "patch_size"}, num_frames=4,
                     tubelet_size=[2, 8, 8]),
        "mc3_18": tvvideo("mc3_18"),
        "r2plus1d_18": tvvideo("r2plus1d_18"),
        "swin3d_t": tvvideo("swin3d_t"),
        # ---- speech
        "sew": speech("SEWModel", "SEWConfig", squeeze_factor=2),
        "sew_d": speech("SEWDModel", "SEWDConfig", squeeze_factor=2, position_buckets=16, max_position_embeddings=64),
        "unispeech": speech("UniSpeechModel", "UniSpeechConfig"),
        "unispeech_sat": speech("UniSpeechSatModel", "UniSpeechSatConfig"),
        "data2vec_audio": speech("Data2VecAudioModel", "Data2VecAudioConfig"),
        "audio_spectrogram_transformer": hfm("ASTModel", "ASTConfig", (torch.randn(2, 64, 32),), (torch.randn(3, 64, 32),), ({0: AUTO},),
                                             wrap="last_hidden_state", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                             intermediate_size=64, patch_size=16, frequency_stride=8, time_stride=8, max_length=64,
                                             num_mel_bins=32),
        # ---- dual encoders
        "owlvit_dual": dual("OwlViTModel", "OwlViTConfig", {**TEXT, "max_position_embeddings": 16}, VISION, seq=(16, 16)),
        "blip_dual": dual("BlipModel", "BlipConfig", TEXT, VISION),
        "chinese_clip_dual": dual("ChineseCLIPModel", "ChineseCLIPConfig", TEXT, VISION),
        # ---- op-level
        "cond_in_loop": fn(CondInLoop, (torch.randn(2, 4) + 0.5,), (torch.randn(3, 4) - 0.5,), ({0: AUTO},)),
        "while_loop_cond": fn(WhileCond, (torch.randn(2, 4),), (torch.randn(3, 4),), ({0: AUTO},)),
        "scan_rnn": fn(ScanRnn, (torch.randn(5, 2, 6),), (torch.randn(5, 3, 6),), ({1: AUTO},)),
        "associative_scan": fn(AssocScan, (torch.randn(2, 6),), (torch.randn(3, 6),), ({0: AUTO},)),
        # (torch.export specialises the batch of the generic combine's vmap: both shapes at batch 2)
        "associative_scan_generic": fn(AssocScanGeneric, (torch.randn(2, 6),), (torch.randn(2, 6) * 3,), ({0: AUTO},)),
        "gru_3layer_bidir_h0": fn(DeepGRU, (torch.randn(5, 2, 6), torch.randn(6, 2, 8)), (torch.randn(5, 3, 6), torch.randn(6, 3, 8)),
                                  ({1: AUTO}, {1: AUTO})),
        "packed_lstm": fn(Packed, (torch.randn(3, 5, 4), torch.tensor([5, 2, 4])), (torch.randn(4, 5, 4), torch.tensor([3, 5, 1, 2])),
                          ({0: AUTO}, {0: AUTO})),
        "antialias_dynamic_hw": fn(Antialias, (torch.randn(2, 3, 20, 24),), (torch.randn(3, 3, 16, 30),), (HW,)),
        "grid_sample_dynamic": fn(GridDyn, (torch.randn(2, 3, 8, 10), torch.rand(2, 5, 6, 2) * 2.2 - 1.1),
                                  (torch.randn(3, 3, 12, 6), torch.rand(3, 7, 4, 2) * 2.2 - 1.1), (HW, {0: AUTO, 1: AUTO, 2: AUTO})),
        "search_sorter_histc": fn(SearchHist, (torch.randn(2, 6), torch.randn(2, 5), torch.randn(2, 4), torch.randint(-2, 11, (2, 6))),
                                  (torch.randn(3, 6), torch.randn(3, 5), torch.randn(3, 4), torch.randint(-2, 11, (3, 6))),
                                  ({0: AUTO},) * 4),
        "scatter_reduce_3d": fn(ScatterReduce3d, (torch.randn(2, 4, 4), torch.randint(0, 5, (2, 4, 4)), torch.tensor([0, 2, 2])),
                                (torch.randn(3, 4, 4), torch.randint(0, 5, (3, 4, 4)), torch.tensor([4, 1, 4])), ({0: AUTO}, {0: AUTO}, None)),
        "stft_istft_variants": fn(StftVariants, (torch.randn(2, 64),), (torch.randn(3, 64),), ({0: AUTO},)),
        "fft_dynamic_length": fn(FftDynamic, (torch.randn(3, 10),), (torch.randn(4, 14),), (BD,)),
        "sort_dynamic_dim": fn(SortDynamic, (torch.randn(3, 7), torch.randint(0, 9, (3, 7))), (torch.randn(4, 9), torch.randint(0, 9, (4, 9))),
                               (BD, BD)),
        "sorted_dispatch_moe": fn(SortedMoE, (torch.randn(2, 5, 16),), (torch.randn(3, 7, 16),), (BD,)),
        "gru_attention_seq2seq": fn(GruAttnSeq2Seq, (torch.randint(0, 20, (2, 7)), torch.randint(0, 20, (2, 4))),
                                    (torch.randint(0, 20, (3, 7)), torch.randint(0, 20, (3, 4))), ({0: AUTO}, {0: AUTO})),
        "fp16_llama": fn(HalfLM, (torch.randint(0, 64, (2, 7)),), (torch.randint(0, 64, (3, 11)),), (BD,)),
        "bf16_block": fn(Bf16Block, (torch.randn(2, 5, 16),), (torch.randn(3, 7, 16),), (BD,)),
        "bf16_convnet": fn(Bf16Conv, (torch.randn(2, 3, 8, 8),), (torch.randn(3, 3, 8, 8),), ({0: AUTO},)),
        "autocast_bf16": fn(AutocastBlock, (torch.randn(2, 5, 16),), (torch.randn(3, 7, 16),), (BD,)),
    }
    first = [k for k in p if k.startswith(OPS_FIRST)] + list(BF16) + ["fp16_llama"]  # the cheap op-level programs run first
    return {k: p[k] for k in first + [k for k in p if k not in first]}


OPS_FIRST = ("cond_in_loop", "while_loop_cond", "scan_rnn", "associative_scan", "gru_3layer", "packed_lstm", "antialias",
             "grid_sample_dyn", "search_sorter", "scatter_reduce_3d", "stft_istft", "fft_dynamic", "sort_dynamic",
             "sorted_dispatch", "gru_attention")


# bf16 programs export with --upcast-bf16 (ONNX Runtime's CPU provider has no bf16 MatMul/Conv) and compare within 2e-2.
BF16 = ("bf16_block", "bf16_convnet", "autocast_bf16")
for _n in BF16:
    C.EXPORT_ARGS[_n] = ["--upcast-bf16"]
    C.TOLERANCE[_n] = 2e-2
C.TOLERANCE["fp16_llama"] = 1e-2

_ROWS = {}


def run(name, build, work, skip_anchor):
    row = S.run(name, build, work, skip_anchor)
    _ROWS[name] = {f"{k[0]} {k[1]}" if isinstance(k, tuple) else k: list(v) for k, v in row.items()}
    out = os.environ.get("PT2_SWEEP_JSON")
    if out:
        with open(out, "w") as f:
            json.dump(_ROWS, f, indent=1)
    return row


if __name__ == "__main__":
    C.run = run
    sys.exit(C.main(programs, anchor_by_default=False))
