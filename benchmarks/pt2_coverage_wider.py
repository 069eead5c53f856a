#!/usr/bin/env python3
"""Coverage of programs beyond pt2_coverage.py: ~60 more architectures and
op-level programs of transformers 5 / torchvision / torch (random weights,
small configurations) through the same run() - saved as exported and
after run_decompositions(), converted by `modelexport export`, checked in
ONNX Runtime at two shapes against eager PyTorch.

    /work/venvs/pt2/bin/python benchmarks/pt2_coverage_wider.py [--only a,b] [--anchor] [--markdown FILE]

Results: docs/pt2-coverage.md ("Wider set").
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pt2_coverage as C  # noqa: E402
from pt2_coverage import AUTO, _lm, fn, lm, vision  # noqa: E402


def enc(model, cfg, **kw):
    def build():
        import transformers as T
        base = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    max_position_embeddings=64)
        m = getattr(T, model)(getattr(T, cfg)(**{**base, **kw}))
        mk = lambda b, s: (torch.randint(1, 64, (b, s)), torch.ones(b, s, dtype=torch.long))
        return m, mk(2, 7), mk(3, 11), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})
    return build

def hfvision(model, cfg, size=32, batch_only=True, **kw):
    def factory():
        import transformers as T
        return getattr(T, model)(getattr(T, cfg)(**kw))
    return vision(factory, size=size, batch_only=batch_only)

def tvm(name, size=64, batch_only=True, **kw):
    def factory():
        import torchvision as tv
        return getattr(tv.models, name)(weights=None, **kw)
    return vision(factory, size=size, batch_only=batch_only)

class Whisper(nn.Module):
    def __init__(self):
        super().__init__()
        import transformers as T
        self.m = T.WhisperForConditionalGeneration(T.WhisperConfig(vocab_size=64, num_mel_bins=8, d_model=32,
            encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16, max_target_positions=32,
            decoder_start_token_id=1, pad_token_id=0, bos_token_id=1, eos_token_id=2))
    def forward(self, feats, dec):
        return self.m(input_features=feats, decoder_input_ids=dec, use_cache=False).logits


class TEnc(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, norm_first=False), 2, enable_nested_tensor=False)
    def forward(self, x, pad): return self.e(x, src_key_padding_mask=pad)
class TFull(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(16, 4, 1, 1, 32, batch_first=True)
    def forward(self, s, t):
        m = nn.Transformer.generate_square_subsequent_mask(t.shape[1])
        return self.t(s, t, tgt_mask=m, tgt_is_causal=True)
class Stft(nn.Module):
    def forward(self, x):
        s = torch.stft(x, 16, hop_length=4, window=torch.hann_window(16), return_complex=True)
        return s.abs() ** 2
class Istft(nn.Module):
    def forward(self, x):
        s = torch.stft(x, 16, hop_length=4, window=torch.hann_window(16), return_complex=True)
        return torch.istft(s, 16, hop_length=4, window=torch.hann_window(16), length=x.shape[-1])
class Complex(nn.Module):
    def forward(self, x):
        c = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        r = c * torch.polar(torch.ones_like(c.real), c.real)
        return torch.view_as_real(r).flatten(-2)
class Misc(nn.Module):
    def forward(self, x, y):
        return (torch.nan_to_num(x.log()), torch.diff(x, dim=1), torch.cross(x[:, :3], y[:, :3], dim=1), F.normalize(x, dim=1),
                torch.linalg.norm(x, dim=1), torch.logsumexp(x, 1), x.clamp(min=y), torch.tril(x @ y.T), torch.trace(x @ y.T),
                torch.cdist(x, y), x.unique_consecutive(), torch.count_nonzero(x > 0, dim=1), torch.rot90(x, 1, (0, 1)),
                torch.kron(x[:2, :2], y[:2, :2]), torch.cummax(x, 1).values, torch.diag_embed(x[:, :3]))
class Sample(nn.Module):
    def forward(self, logits):
        probs = torch.softmax(logits / 0.7, -1)
        top = torch.topk(probs, 3)
        return top.values.cumsum(-1), top.indices, probs.argmax(-1, keepdim=True)
class MaskBuild(nn.Module):
    def forward(self, x, lengths):
        s = x.shape[1]
        mask = torch.arange(s)[None, :] < lengths[:, None]
        causal = torch.ones(s, s, dtype=torch.bool).tril()
        m = mask[:, None, :] & causal[None]
        scores = (x @ x.transpose(1, 2)).masked_fill(~m, float("-inf"))
        return torch.nan_to_num(scores.softmax(-1)) @ x
class EmbBag(nn.Module):
    def __init__(self):
        super().__init__(); self.e = nn.EmbeddingBag(10, 4, mode="mean")
    def forward(self, i): return self.e(i)
class Bilinear(nn.Module):
    def __init__(self):
        super().__init__(); self.b = nn.Bilinear(4, 5, 3)
    def forward(self, x, y): return self.b(x, y)
class Upsample(nn.Module):
    def __init__(self):
        super().__init__(); self.u = nn.Upsample(scale_factor=2, mode="nearest"); self.c = nn.ConvTranspose2d(3, 3, 4, 2, 1)
    def forward(self, x): return self.u(x) + self.c(x), F.interpolate(x, scale_factor=0.5, mode="area"), F.adaptive_max_pool2d(x, 3)
class Scatter(nn.Module):
    def forward(self, x, idx):
        out = torch.zeros(x.shape[0], 5)
        out = out.index_add(1, idx, x)
        z = torch.zeros(x.shape[0], 5).scatter_reduce(1, idx[None].expand(x.shape[0], -1), x, "amax", include_self=False)
        return out, z, torch.bincount(idx, minlength=5)


class MessagePassing(nn.Module):
    """GNN layer: gathered messages, index_add / scatter_reduce aggregation, a GRUCell update."""
    def __init__(self, d=8):
        super().__init__(); self.msg = nn.Linear(2 * d, d); self.upd = nn.GRUCell(d, d)
    def forward(self, x, edges):
        src, dst = edges[0], edges[1]
        m = F.relu(self.msg(torch.cat([x[src], x[dst]], -1)))
        agg = torch.zeros_like(x).index_add(0, dst, m)
        mx = torch.zeros_like(x).scatter_reduce(0, dst[:, None].expand(-1, x.shape[1]), m, "amax", include_self=False)
        return self.upd(agg + mx, x)
class ShapeCond(nn.Module):
    """torch.cond on a SymBool (a dynamic dim), the branches of other ops."""
    def __init__(self):
        super().__init__(); self.l = nn.Linear(4, 4)
    def forward(self, x):
        return torch.cond(x.shape[0] > 2, lambda t: self.l(t).relu(), lambda t: t * 0.5, (x,))
class Spectral2d(nn.Module):
    """FNO-style spectral filter: rfft2, complex weights, irfft2; fft / ifft of a complex signal."""
    def __init__(self):
        super().__init__(); self.w = nn.Parameter(torch.randn(6, 5, 2) * 0.3)
    def forward(self, x):
        f = torch.fft.rfft2(x) * torch.view_as_complex(self.w)
        c = torch.fft.ifft(torch.fft.fft(x, dim=-1) * 2, dim=-1)
        return torch.fft.irfft2(f, s=x.shape[-2:]), c.real


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)

def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)

class MetaAttention(nn.Module):
    """Meta's llama reference attention (complex RoPE)."""
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.h, self.hd = heads, dim // heads
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.freqs_cis = precompute_freqs_cis(self.hd, 64)
    def forward(self, x):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.h, self.hd); k = self.wk(x).view(b, s, self.h, self.hd); v = self.wv(x).view(b, s, self.h, self.hd)
        q, k = apply_rotary_emb(q, k, self.freqs_cis[:s])
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.wo(o.transpose(1, 2).reshape(b, s, -1))

class MetaAttentionArg(nn.Module):
    def __init__(self):
        super().__init__(); self.a = MetaAttention()
    def forward(self, x, angles):
        fc = torch.polar(torch.ones_like(angles), angles)
        q, k = apply_rotary_emb(x.view(*x.shape[:2], 4, 8), x.view(*x.shape[:2], 4, 8), fc)
        return q, k


class DecodeStepN(nn.Module):
    def __init__(self, model, n):
        super().__init__(); self.model = model; self.n = n
    def forward(self, ids, *kv):
        from transformers import DynamicCache
        cache = DynamicCache(config=self.model.config)
        for i in range(self.n):
            cache.update(kv[2 * i], kv[2 * i + 1], i)
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True)
        c = out.past_key_values
        res = [out.logits]
        for l in c.layers:
            res += [l.keys, l.values]
        return tuple(res)

def dstep(cfg, model, hd=8, kvh=2, n=2, past=(5, 9), **kw):
    def build():
        m = DecodeStepN(_lm(cfg, model, use_cache=True, **kw), n)
        dim = torch.export.Dim("past", min=1, max=60)
        args = lambda p: (torch.randint(0, 64, (1, 1)),) + tuple(torch.randn(1, kvh, p, hd) for _ in range(2 * n))
        return m, args(past[0]), args(past[1]), ({}, tuple({2: dim} for _ in range(2 * n)))
    return build

class Seq2SeqStep(nn.Module):
    def __init__(self, m):
        super().__init__(); self.m = m
    def forward(self, enc, dec, sk, sv, ck, cv):
        from transformers import DynamicCache, EncoderDecoderCache
        self_c, cross_c = DynamicCache(), DynamicCache()
        self_c.update(sk, sv, 0); cross_c.update(ck, cv, 0)
        out = self.m(encoder_outputs=(enc,), decoder_input_ids=dec, past_key_values=EncoderDecoderCache(self_c, cross_c), use_cache=True)
        return out.logits, out.past_key_values.self_attention_cache.layers[0].keys


def programs():
    import transformers as T
    return {
        "gpt_neox": lm("GPTNeoXConfig", "GPTNeoXForCausalLM", rotary_pct=0.5),
        "falcon": lm("FalconConfig", "FalconForCausalLM", num_kv_heads=2, new_decoder_architecture=True),
        "bloom": lm("BloomConfig", "BloomForCausalLM", n_head=4, n_layer=2),
        "opt": lm("OPTConfig", "OPTForCausalLM", ffn_dim=64, word_embed_proj_dim=32),
        "qwen3": lm("Qwen3Config", "Qwen3ForCausalLM", head_dim=8),
        "qwen3_moe": lm("Qwen3MoeConfig", "Qwen3MoeForCausalLM", head_dim=8, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16),
        "gemma3": lm("Gemma3TextConfig", "Gemma3ForCausalLM", head_dim=8, sliding_window=4),
        "olmo2": lm("Olmo2Config", "Olmo2ForCausalLM"),
        "stablelm": lm("StableLmConfig", "StableLmForCausalLM", partial_rotary_factor=0.5),
        "granite": lm("GraniteConfig", "GraniteForCausalLM"),
        "cohere": lm("CohereConfig", "CohereForCausalLM"),
        "starcoder2": lm("Starcoder2Config", "Starcoder2ForCausalLM"),
        "phi": lm("PhiConfig", "PhiForCausalLM", partial_rotary_factor=0.5),
        "gpt_bigcode": lm("GPTBigCodeConfig", "GPTBigCodeForCausalLM", n_embd=32, n_layer=2, n_head=4, n_positions=64),
        "gpt_oss": lm("GptOssConfig", "GptOssForCausalLM", head_dim=8, num_local_experts=4, num_experts_per_tok=2, sliding_window=4),
        "bert": enc("BertModel", "BertConfig"),
        "roberta": enc("RobertaModel", "RobertaConfig", pad_token_id=0),
        "deberta_v2": enc("DebertaV2Model", "DebertaV2Config", relative_attention=True, pos_att_type=["p2c", "c2p"], position_buckets=8),
        "distilbert": enc("DistilBertModel", "DistilBertConfig", dim=32, n_layers=2, n_heads=4, hidden_dim=64),
        "albert": enc("AlbertModel", "AlbertConfig", embedding_size=16),
        "electra": enc("ElectraModel", "ElectraConfig", embedding_size=16),
        "modernbert": enc("ModernBertModel", "ModernBertConfig", global_attn_every_n_layers=2, local_attention=4, pad_token_id=0),
        "whisper": lambda: (Whisper(), (torch.randn(2, 8, 32), torch.randint(0, 64, (2, 5))),
                            (torch.randn(3, 8, 32), torch.randint(0, 64, (3, 7))), ({0: AUTO}, {0: AUTO, 1: AUTO})),
        "deit": hfvision("DeiTModel", "DeiTConfig", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64),
        "beit": hfvision("BeitModel", "BeitConfig", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=64, use_relative_position_bias=True),
        "dinov2": hfvision("Dinov2Model", "Dinov2Config", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4),
        "convnextv2": hfvision("ConvNextV2Model", "ConvNextV2Config", size=64, hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1]),
        "regnet_hf": hfvision("RegNetModel", "RegNetConfig", size=64, hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1], groups_width=8, embedding_size=8),
        "levit": hfvision("LevitModel", "LevitConfig", size=64, image_size=64, hidden_sizes=[32, 48, 64], num_attention_heads=[2, 3, 4],
                          depths=[1, 1, 1], key_dim=[8, 8, 8]),
        "poolformer": hfvision("PoolFormerModel", "PoolFormerConfig", size=64, hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1]),
        "mobilenet_v2_hf": hfvision("MobileNetV2Model", "MobileNetV2Config", size=64, depth_multiplier=0.35),
        "detr": lambda: (__import__("transformers").DetrForObjectDetection(__import__("transformers").DetrConfig(
            use_timm_backbone=False, use_pretrained_backbone=False, backbone_config=dict(model_type="resnet", hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1], embedding_size=8, out_features=["stage4"]),
            d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
            encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=5, num_labels=3)),
            (torch.randn(2, 3, 64, 64),), (torch.randn(3, 3, 64, 64),), ({0: AUTO},)),
        "upernet_convnext": vision(lambda: T.UperNetForSemanticSegmentation(T.UperNetConfig(
            backbone_config=dict(model_type="convnext", hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1],
                                 out_features=["stage1", "stage2", "stage3", "stage4"]),
            hidden_size=16, auxiliary_in_channels=32, num_labels=3)), batch_only=False),
        "gnn_message_passing": fn(MessagePassing, (torch.randn(5, 8), torch.tensor([[0, 1, 2, 3, 4, 0, 2], [1, 2, 3, 4, 0, 2, 2]])),
                                  (torch.randn(7, 8), torch.tensor([[0, 1, 2, 3, 4, 5, 6, 6, 1], [1, 2, 3, 4, 5, 6, 0, 3, 1]])), ({0: AUTO}, {1: AUTO})),
        "cond_symbolic": fn(ShapeCond, (torch.randn(2, 4),), (torch.randn(3, 4),), ({0: AUTO},)),
        "spectral_fft2": fn(Spectral2d, (torch.randn(2, 3, 6, 8),), (torch.randn(3, 3, 6, 8),), ({0: AUTO},)),
        "resnet18": tvm("resnet18"),
        "mobilenet_v3_small": tvm("mobilenet_v3_small"),
        "shufflenet": tvm("shufflenet_v2_x0_5"),
        "squeezenet": tvm("squeezenet1_1"),
        "googlenet": tvm("googlenet", aux_logits=False, init_weights=True),
        "densenet121": tvm("densenet121"),
        "mnasnet": tvm("mnasnet0_5"),
        "regnet_tv": tvm("regnet_y_400mf"),
        "inception_v3": tvm("inception_v3", size=96, aux_logits=False, init_weights=True),
        "mobilenet_v3_large": tvm("mobilenet_v3_large"),
        "vit_tv_small": vision(lambda: __import__("torchvision").models.VisionTransformer(32, 8, 2, 4, 32, 64, num_classes=5), size=32),
        "hubert": lambda: (__import__("transformers").HubertModel(__import__("transformers").HubertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=4)), (torch.randn(2, 800),), (torch.randn(3, 1200),), ({0: AUTO, 1: AUTO},)),
        "wavlm": lambda: (__import__("transformers").WavLMModel(__import__("transformers").WavLMConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=4, num_buckets=16, max_bucket_distance=32)), (torch.randn(2, 800),), (torch.randn(3, 1200),), ({0: AUTO, 1: AUTO},)),
        "transformer_encoder": fn(TEnc, (torch.randn(2, 7, 16), C._pad(2, 7)), (torch.randn(3, 9, 16), C._pad(3, 9)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})),
        "transformer_full": fn(TFull, (torch.randn(2, 7, 16), torch.randn(2, 5, 16)), (torch.randn(3, 9, 16), torch.randn(3, 6, 16)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})),
        "stft": fn(Stft, (torch.randn(2, 64),), (torch.randn(3, 80),), ({0: AUTO, 1: AUTO},)),
        "istft": fn(Istft, (torch.randn(2, 64),), (torch.randn(3, 64),), ({0: AUTO},)),
        "complex": fn(Complex, (torch.randn(2, 8),), (torch.randn(3, 8),), ({0: AUTO},)),
        "misc": fn(Misc, (torch.randn(4, 6), torch.randn(4, 6)), (torch.randn(4, 6), torch.randn(4, 6)), None),
        "sampling": fn(Sample, (torch.randn(2, 10),), (torch.randn(3, 10),), ({0: AUTO},)),
        "mask_build": fn(MaskBuild, (torch.randn(2, 6, 4), torch.tensor([3, 6])), (torch.randn(3, 8, 4), torch.tensor([1, 8, 5])), ({0: AUTO, 1: AUTO}, {0: AUTO})),
        "embedding_bag": fn(EmbBag, (torch.randint(0, 10, (2, 3)),), (torch.randint(0, 10, (3, 3)),), ({0: AUTO},)),
        "bilinear": fn(Bilinear, (torch.randn(2, 4), torch.randn(2, 5)), (torch.randn(3, 4), torch.randn(3, 5)), ({0: AUTO}, {0: AUTO})),
        "upsample_convt": fn(Upsample, (torch.randn(2, 3, 8, 8),), (torch.randn(3, 3, 8, 8),), ({0: AUTO},)),
        "scatter_index_add_bincount": fn(Scatter, (torch.randn(2, 4), torch.tensor([0, 2, 2, 4])), (torch.randn(3, 4), torch.tensor([1, 1, 3, 0])), ({0: AUTO}, None)),
        "meta_rope_attention": fn(MetaAttention, (torch.randn(2, 7, 32),), (torch.randn(3, 11, 32),), ({0: AUTO, 1: AUTO},)),
        "rope_polar_arg": fn(MetaAttentionArg, (torch.randn(2, 7, 32), torch.randn(7, 4)), (torch.randn(3, 11, 32), torch.randn(11, 4)), ({0: AUTO, 1: AUTO}, {0: AUTO})),
        "qwen3_decode": dstep("Qwen3Config", "Qwen3ForCausalLM", head_dim=8),
        "gpt2_decode": dstep("GPT2Config", "GPT2LMHeadModel", kvh=4, n_embd=32, n_layer=2, n_head=4, n_positions=64),
        "phi3_decode": dstep("Phi3Config", "Phi3ForCausalLM", kvh=2, pad_token_id=0),
        "t5_decode_step": lambda: (Seq2SeqStep(T.T5ForConditionalGeneration(T.T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=1,
                                               num_heads=4, decoder_start_token_id=0))),
                                   (torch.randn(1, 7, 32), torch.randint(0, 64, (1, 1)), torch.randn(1, 4, 3, 8), torch.randn(1, 4, 3, 8), torch.randn(1, 4, 7, 8), torch.randn(1, 4, 7, 8)),
                                   (torch.randn(1, 9, 32), torch.randint(0, 64, (1, 1)), torch.randn(1, 4, 5, 8), torch.randn(1, 4, 5, 8), torch.randn(1, 4, 9, 8), torch.randn(1, 4, 9, 8)),
                                   ({1: AUTO}, None, {2: AUTO}, {2: AUTO}, {2: AUTO}, {2: AUTO})),
    }


if __name__ == "__main__":
    sys.exit(C.main(programs, anchor_by_default=False))
