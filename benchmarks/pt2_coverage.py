#!/usr/bin/env python3
"""Coverage of real programs: which `torch.export` programs convert, ours
against `torch.onnx.export(ep, dynamo=True)` on the same saved archives.

Each program (random weights, small configs of real architectures: decoder
LLMs with and without a KV cache, MoE, seq2seq, vision and speech encoders,
segmentation, video, recurrent, control flow, FFT, resampling, fp16) is
exported with `torch.export.export` (dynamic batch and, where it applies,
sequence), saved as-is (TRAINING) and after `run_decompositions()` (core);
both files go through `modelexport export` and through torch.onnx, and each
ONNX file that is written runs in ONNX Runtime at the export shape and at a
second shape against eager PyTorch. A conversion counts when ONNX Runtime's
outputs match within 1e-4 relative (fp16: 1e-2) at both shapes.

Runs in the venv with torch 2.15 (not an SDK dependency), ~10 minutes:

    /work/venvs/pt2/bin/python benchmarks/pt2_coverage.py [--only a,b] [--skip-anchor] [--markdown FILE]

The CLI is MODELEXPORT_BIN (or <repo>/build*/sdk/modelexport), plugins from
MODELEXPORT_PLUGIN_PATH. Results: docs/pt2-coverage.md.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
AUTO = torch.export.Dim.AUTO
ANCHOR_LEVELS = ("training", "core")  # the levels run() exports with torch.onnx (lean_sweep.py may narrow it)
EXPORT_ARGS = {}  # program name -> extra `modelexport export` arguments (a sweep's bf16 programs: --upcast-bf16)
TOLERANCE = {}  # program name -> relative tolerance, where the inputs' dtype does not tell it


# ------------------------------------------------------------------ programs
def _lm(cfg_name, model_name, **kw):
    import transformers as T
    base = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=64, use_cache=False)
    return getattr(T, model_name)(getattr(T, cfg_name)(**{**base, **kw}))


class DecodeStep(nn.Module):
    """One token with a DynamicCache of dynamic length, caches in and out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, k0, v0, k1, v1):
        from transformers import DynamicCache
        cache = DynamicCache()
        cache.update(k0, v0, 0)
        cache.update(k1, v1, 1)
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True)
        c = out.past_key_values
        return out.logits, c.layers[0].keys, c.layers[0].values, c.layers[1].keys, c.layers[1].values


def decode_step(cfg, model, **kw):
    def build():
        m = DecodeStep(_lm(cfg, model, use_cache=True, **kw))
        dim = torch.export.Dim("past", min=1, max=60)
        args = lambda past: (torch.randint(0, 64, (1, 1)),) + tuple(torch.randn(1, 2, past, 8) for _ in range(4))
        return m, args(5), args(9), ({},) + tuple({2: dim} for _ in range(4))
    return build


def lm(cfg, model, **kw):
    def build():
        return (_lm(cfg, model, **kw), (torch.randint(0, 64, (2, 7)),), (torch.randint(0, 64, (3, 11)),),
                ({0: AUTO, 1: AUTO},))
    return build


def vision(factory, size=64, batch_only=True):
    def build():
        dyn = {0: AUTO} if batch_only else {0: AUTO, 2: AUTO, 3: AUTO}
        other = (3, 3, size, size) if batch_only else (1, 3, size + 32, size + 32)
        return factory(), (torch.randn(2 if batch_only else 1, 3, size, size),), (torch.randn(*other),), (dyn,)
    return build


def fn(module, a, b, dyn):
    return lambda: (module(), a, b, dyn)


class Seq2Seq(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, mask, dec):
        return self.m(input_ids=ids, attention_mask=mask, decoder_input_ids=dec, use_cache=False).logits


def seq2seq(kind):
    def build():
        import transformers as T
        if kind == "t5":
            m = T.T5ForConditionalGeneration(T.T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                                                        num_heads=4, decoder_start_token_id=0))
        else:
            m = T.BartForConditionalGeneration(T.BartConfig(vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1,
                                                            encoder_attention_heads=4, decoder_attention_heads=4,
                                                            encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64))
        mk = lambda b, s, t: (torch.randint(0, 64, (b, s)), torch.ones(b, s, dtype=torch.long), torch.randint(0, 64, (b, t)))
        return Seq2Seq(m), mk(2, 7, 5), mk(3, 9, 6), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})
    return build


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, 2, batch_first=True)
        self.gru = nn.GRU(16, 8, batch_first=True, bidirectional=True)

    def forward(self, x):
        return self.gru(self.lstm(x)[0])[0]


class Cond(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: self.a(t).relu(), lambda t: self.b(t) - 1.0, (x,))


class Spectrum(nn.Module):
    def forward(self, x):
        s = torch.fft.rfft(x, dim=-1)
        return s.abs(), torch.fft.irfft(s * 2, n=x.shape[-1], dim=-1)


class Resample(nn.Module):
    def forward(self, x, g):
        return (F.interpolate(x, scale_factor=2, mode="bilinear"), F.interpolate(x, size=(7, 9), mode="bicubic", align_corners=True),
                F.grid_sample(x, g, align_corners=False), F.unfold(x, 3, padding=1), F.pixel_shuffle(torch.cat([x] * 4, 1), 2))


class SortScatter(nn.Module):
    def forward(self, x, idx):
        v, i = x.sort(-1, descending=True)
        s = torch.zeros_like(x).scatter_add(1, idx, x[:, :4])
        return v, i, x.topk(3).values, s, x.gather(1, idx)


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, pad):
        return self.mha(x, x, x, key_padding_mask=pad)[0]


class HalfBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.l, self.n = nn.Linear(16, 16), nn.LayerNorm(16)

    def forward(self, x):
        return F.gelu(self.n(self.l(x)))


def _pad(b, s):
    m = torch.zeros(b, s, dtype=torch.bool)
    m[0, s - 2:] = True
    return m


def programs():
    import torchvision as tv
    import transformers as T
    return {
        "llama_decode_step": decode_step("LlamaConfig", "LlamaForCausalLM"),
        "mixtral_moe_decode_step": decode_step("MixtralConfig", "MixtralForCausalLM", num_local_experts=4, num_experts_per_tok=2),
        "llama": lm("LlamaConfig", "LlamaForCausalLM"),
        "gemma2_softcap_sliding": lm("Gemma2Config", "Gemma2ForCausalLM", head_dim=8, sliding_window=4,
                                     attn_logit_softcapping=50.0, final_logit_softcapping=30.0),
        "mistral_sliding": lm("MistralConfig", "MistralForCausalLM", sliding_window=4),
        "qwen2_moe": lm("Qwen2MoeConfig", "Qwen2MoeForCausalLM", num_experts=4, num_experts_per_tok=2,
                        moe_intermediate_size=16, shared_expert_intermediate_size=16),
        "phi3": lm("Phi3Config", "Phi3ForCausalLM", pad_token_id=0),
        "t5": seq2seq("t5"),
        "bart": seq2seq("bart"),
        "vit": lambda: (T.ViTModel(T.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
                                               num_attention_heads=4, intermediate_size=64)),
                        (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), ({0: AUTO},)),
        "swin": lambda: (T.SwinModel(T.SwinConfig(image_size=32, patch_size=2, embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                                                  window_size=4)), (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), ({0: AUTO},)),
        "mobilevit": vision(lambda: T.MobileViTForImageClassification(T.MobileViTConfig(
            image_size=64, hidden_sizes=[32, 48, 64], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64], num_labels=5))),
        "wav2vec2": lambda: (T.Wav2Vec2Model(T.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                              intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                                                              conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                                                              num_conv_pos_embedding_groups=4)),
                             (torch.randn(2, 800),), (torch.randn(3, 1200),), ({0: AUTO, 1: AUTO},)),
        "clip_dual_encoder": lambda: (T.CLIPModel(T.CLIPConfig(
            text_config=dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                             max_position_embeddings=16),
            vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=32,
                               patch_size=8), projection_dim=16)),
            (torch.randint(0, 64, (2, 7)), torch.randn(2, 3, 32, 32)), (torch.randint(0, 64, (2, 7)), torch.randn(2, 3, 32, 32)), None),
        "segformer": vision(lambda: T.SegformerForSemanticSegmentation(T.SegformerConfig(
            hidden_sizes=[16, 32, 32, 64], num_attention_heads=[1, 2, 2, 4], depths=[1, 1, 1, 1], decoder_hidden_size=32,
            num_labels=5)), batch_only=False),
        "deeplabv3": vision(lambda: tv.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                                       num_classes=5), batch_only=False),
        "r3d_video": lambda: (tv.models.video.r3d_18(weights=None, num_classes=5), (torch.randn(2, 3, 4, 32, 32),),
                              (torch.randn(3, 3, 4, 32, 32),), ({0: AUTO},)),
        "convnext": vision(lambda: T.ConvNextModel(T.ConvNextConfig(hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1]))),
        "efficientnet_b0": vision(lambda: tv.models.efficientnet_b0(num_classes=5)),
        "swin_t_torchvision": vision(lambda: tv.models.swin_t(num_classes=5)),
        "lstm_gru": fn(Recurrent, (torch.randn(2, 5, 8),), (torch.randn(3, 5, 8),), ({0: AUTO},)),
        "torch_cond": fn(Cond, (torch.randn(2, 4) + 1,), (torch.randn(3, 4) - 1,), ({0: AUTO},)),
        "rfft_spectrum": fn(Spectrum, (torch.randn(2, 16),), (torch.randn(3, 16),), ({0: AUTO},)),
        "resampling": fn(Resample, (torch.randn(2, 3, 8, 8), torch.rand(2, 5, 5, 2) * 2 - 1),
                         (torch.randn(3, 3, 8, 8), torch.rand(3, 5, 5, 2) * 2 - 1), ({0: AUTO}, {0: AUTO})),
        "sort_topk_scatter": fn(SortScatter, (torch.randn(3, 10), torch.randint(0, 10, (3, 4))),
                                (torch.randn(5, 10), torch.randint(0, 10, (5, 4))), ({0: AUTO}, {0: AUTO})),
        "padded_mha": fn(MHA, (torch.randn(2, 7, 16), _pad(2, 7)), (torch.randn(3, 9, 16), _pad(3, 9)),
                         ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})),
        "fp16_block": fn(lambda: HalfBlock().half(), (torch.randn(2, 4, 16).half(),), (torch.randn(3, 6, 16).half(),),
                         ({0: AUTO, 1: AUTO},)),
    }


# ------------------------------------------------------------------ running
def _flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, dict):
        out = list(out.values())
    res = []
    for o in out if isinstance(out, (list, tuple)) else []:
        res.extend(_flat(o))
    return res


def _ort_matches(path, inputs_a, inputs_b, ref_a, ref_b, tol):
    import onnxruntime as ort
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    # State the program writes (a StaticCache, a renormalised embedding) is
    # carried out as trailing `<name>.updated` outputs: not model outputs.
    model_outputs = [o.name for o in sess.get_outputs() if not o.name.endswith(".updated")]
    worst = 0.0
    for xs, ref in ((inputs_a, ref_a), (inputs_b, ref_b)):
        outs = sess.run(model_outputs, {n: x.numpy() for n, x in zip(names, xs)})
        if len(outs) != len(ref):
            return False, f"{len(outs)} outputs for {len(ref)}"
        for o, r in zip(outs, ref):
            r = r.detach().float().numpy()
            o = np.asarray(o, dtype=np.float32)
            if o.shape != r.shape:
                return False, f"shape {o.shape} != {r.shape}"
            worst = max(worst, float(np.abs(o - r).max() / max(1.0, np.abs(r).max())) if r.size else 0.0)
    return worst <= tol, f"{worst:.1e}"


def _cli():
    cli = os.environ.get("MODELEXPORT_BIN") or os.environ.get("MODELEXPORT_CLI")
    if cli:
        return cli
    for b in sorted(glob.glob(os.path.join(REPO, "build*", "sdk", "modelexport"))):
        return b
    return "modelexport"


def run(name, build, work, skip_anchor):
    torch.manual_seed(0)
    model, a, b, dyn = build()
    model = model.eval()
    with torch.no_grad():
        ep = torch.export.export(model, a, dynamic_shapes=dyn, strict=False)
        ref_a, ref_b = _flat(model(*a)), _flat(model(*b))
    tol = TOLERANCE.get(name, 1e-2 if any(t.dtype == torch.float16 for t in a) else 1e-4)
    row = {}
    for level, prog in (("training", ep), ("core", ep.run_decompositions())):
        pt2 = os.path.join(work, f"{name}.{level}.pt2")
        torch.export.save(prog, pt2)
        out = os.path.join(work, f"{name}.{level}.mx.onnx")
        t0 = time.perf_counter()
        p = subprocess.run([_cli(), "export", pt2, "-o", out] + EXPORT_ARGS.get(name, []), capture_output=True, text=True)
        took = time.perf_counter() - t0
        if p.returncode != 0:
            row[("mx", level)] = ("fails", (p.stderr.strip().splitlines() or ["?"])[-1][:160])
        else:
            try:
                ok, how = _ort_matches(out, a, b, ref_a, ref_b, tol)
                row[("mx", level)] = ("ok" if ok else "mismatch", f"{how}, {took:.2f} s")
            except Exception as e:  # our file fails in ONNX Runtime: ours, not torch's
                row[("mx", level)] = ("fails", f"onnxruntime: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
        if skip_anchor or level not in ANCHOR_LEVELS:
            continue
        out = os.path.join(work, f"{name}.{level}.dynamo.onnx")
        try:
            t0 = time.perf_counter()
            torch.onnx.export(torch.export.load(pt2), (), out, dynamo=True, verbose=False)
            took = time.perf_counter() - t0
            ok, how = _ort_matches(out, a, b, ref_a, ref_b, tol)
            row[("anchor", level)] = ("ok" if ok else "mismatch", f"{how}, {took:.2f} s")
        except Exception as e:  # the anchor's own failure is a result
            row[("anchor", level)] = ("fails", f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
    return row


def main(program_set=programs, anchor_by_default=True):
    """Runs `program_set()` and prints the table; pt2_coverage_wider.py
    runs its own set through here without the anchor unless asked."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    if anchor_by_default:
        ap.add_argument("--skip-anchor", action="store_true")
    else:
        ap.add_argument("--anchor", dest="skip_anchor", action="store_false",
                        help="also torch.onnx.export(ep, dynamo=True)")
    ap.add_argument("--markdown", default="")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    rows = {}
    with tempfile.TemporaryDirectory() as work:
        for name, build in program_set().items():
            if only and name not in only:
                continue
            try:
                rows[name] = run(name, build, work, args.skip_anchor)
            except Exception as e:  # torch.export itself failed: not counted either way
                rows[name] = {"torch.export": ("fails", f"{type(e).__name__}: {str(e)[:120]}")}
            print(name, {f"{k[0]}/{k[1]}" if isinstance(k, tuple) else k: v[0] for k, v in rows[name].items()}, flush=True)
    keys = [("mx", "training"), ("mx", "core")] + ([] if args.skip_anchor else [("anchor", "training"), ("anchor", "core")])
    lines = ["| program | " + " | ".join(f"{w} {lvl}" for w, lvl in keys) + " |", "|---" * (len(keys) + 1) + "|"]
    for name, row in rows.items():
        cells = [f"{row[k][0]} ({row[k][1]})" if k in row else "-" for k in keys]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    total = {k: sum(1 for r in rows.values() if r.get(k, ("",))[0] == "ok") for k in keys}
    lines.append("| **converted** | " + " | ".join(f"**{total[k]} / {len(rows)}**" for k in keys) + " |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
