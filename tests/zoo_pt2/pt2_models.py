"""The model list shared by the torch.export (.pt2) scripts: the op inventory
(tests/fixtures/pt2/op_inventory.py), the zoo (tests/zoo_pt2/run_zoo.py) and
the anchor benchmark (benchmarks/pt2_anchor.py).

Runs only in the throwaway venv with current PyTorch from PyPI (torch 2.15,
torchvision, transformers 5.x) -- never a build or test dependency of the SDK.

Every model is built in code with random weights (fixed seed, no download;
parameters initialised to a constant -- norm weights 1, biases 0 -- get small
random offsets so that parity checks see them):
torchvision classifiers at their native resolution with BatchNorm statistics
set by one train-mode forward pass, Hugging Face transformers from tiny
configs with their default attention (`sdpa`) and `use_cache=False`. They
return their `ModelOutput` (return_dict=True): in transformers 5.23 a config
with `return_dict=False` breaks most composite models in eager
(GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM, T5, ViT..: "'tuple'
object has no attribute 'last_hidden_state'/'past_key_values'"). A
ModelOutput is a registered pytree: the program's outputs are its non-None
tensors in field order, the same order `flatten_outputs` gives for eager.

A `Case` knows how to build the model, how to make example inputs at shape
index 0 (the export shape) and 1 (another size for every dynamic axis), and
which axes it tries to make dynamic. Inputs are keyword arguments, so the
program's user inputs are named after the forward's parameters.
"""
import dataclasses
import gc
import time
from typing import Callable, Dict, List, Optional

import torch

SEED = 0


@dataclasses.dataclass
class Case:
    name: str
    family: str                       # "torchvision" | "transformers" | "custom"
    build: Callable[[], torch.nn.Module]
    inputs: Callable[[int], Dict[str, torch.Tensor]]   # shape index 0/1 -> kwargs
    # input name -> {axis: dim name}; the dims tried, most dynamic first
    dynamic: Dict[str, Dict[int, str]]
    # dim name -> (min, max) for torch.export.Dim; None = Dim's defaults
    dim_ranges: Dict[str, tuple] = dataclasses.field(default_factory=dict)
    note: str = ""


def _gen(seed):
    g = torch.Generator().manual_seed(seed)
    return g


def _randn(shape, seed):
    return torch.randn(*shape, generator=_gen(seed))


def _randint(high, shape, seed, low=0):
    return torch.randint(low, high, shape, generator=_gen(seed), dtype=torch.long)


def perturb_constant_params(model, seed=1):
    """Give every parameter whose elements are all equal (LayerNorm/BatchNorm
    weight 1 and bias 0, zero-initialised Linear/Conv biases) small random
    values: otherwise a lowering that drops a norm's affine or a bias still
    matches eager PyTorch. Deterministic."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            if p.numel() > 1 and p.dtype.is_floating_point and bool((p == p.flatten()[0]).all()):
                p.add_(0.1 * torch.randn(p.shape, generator=g, dtype=p.dtype))
    return model


# ------------------------------------------------------------------ vision
def calibrate_bn(model, example):
    """One train-mode forward so BatchNorm running statistics are not the
    trivial 0/1 (a folded-away BatchNorm would otherwise go unnoticed)."""
    has_bn = any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules())
    if has_bn:
        model.train()
        with torch.no_grad():
            model(**example) if isinstance(example, dict) else model(example)
    return model.eval()


TV_MODELS = {
    # name: (constructor kwargs, resolution)
    "resnet18": ({}, 224),
    "resnet50": ({}, 224),
    "mobilenet_v2": ({}, 224),
    "mobilenet_v3_small": ({}, 224),
    "efficientnet_b0": ({}, 224),
    "densenet121": ({}, 224),
    "squeezenet1_0": ({}, 224),
    "shufflenet_v2_x0_5": ({}, 224),
    "mnasnet0_5": ({}, 224),
    "googlenet": ({"aux_logits": False, "init_weights": True}, 224),
    "inception_v3": ({"aux_logits": False, "init_weights": True}, 299),
    "regnet_y_400mf": ({}, 224),
    "convnext_tiny": ({}, 224),
    "vit_b_16": ({}, 224),
    "swin_t": ({}, 224),
    "alexnet": ({}, 224),
    "vgg11": ({}, 224),
}


def _tv_case(name):
    kwargs, res = TV_MODELS[name]

    def build():
        import torchvision
        torch.manual_seed(SEED)
        model = perturb_constant_params(getattr(torchvision.models, name)(weights=None, **kwargs))
        return calibrate_bn(model, {"x": _randn((4, 3, res, res), 123)})

    def inputs(i):
        return {"x": _randn(((2, 3)[i], 3, res, res), 10 + i)}

    return Case(name, "torchvision", build, inputs, {"x": {0: "batch"}})


# ------------------------------------------------------------ transformers
def _hf(cls_name, config_name, return_dict=True, **cfg):
    def build():
        import transformers
        torch.manual_seed(SEED)
        config = getattr(transformers, config_name)(return_dict=return_dict, **cfg)
        if hasattr(config, "use_cache"):
            config.use_cache = False
        model = getattr(transformers, cls_name)(config)
        return perturb_constant_params(model).eval()
    return build


def _text_inputs(vocab, seqs=(8, 11), batches=(2, 3), mask=True, extra=None):
    def inputs(i):
        b, s = batches[i], seqs[i]
        d = {"input_ids": _randint(vocab, (b, s), 20 + i)}
        if mask:
            m = torch.ones(b, s, dtype=torch.long)
            m[0, -2:] = 0          # some padding, so the mask is not a no-op
            d["attention_mask"] = m
        if extra:
            d.update(extra(i, b, s))
        return d
    return inputs


_TEXT_DYN = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
V = 128  # tiny vocabulary

def _hf_cases():
    cases = []
    cases.append(Case(
        "bert", "transformers",
        _hf("BertModel", "BertConfig", vocab_size=V, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=2, intermediate_size=64, max_position_embeddings=64),
        _text_inputs(V), dict(_TEXT_DYN), {"seq": (2, 64)}))
    cases.append(Case(
        "distilbert", "transformers",
        _hf("DistilBertModel", "DistilBertConfig", vocab_size=V, dim=32, n_layers=2, n_heads=2,
            hidden_dim=64, max_position_embeddings=64),
        _text_inputs(V), dict(_TEXT_DYN), {"seq": (2, 64)}))
    cases.append(Case(
        "gpt2", "transformers",
        _hf("GPT2LMHeadModel", "GPT2Config", vocab_size=V, n_embd=32, n_layer=2, n_head=2,
            n_positions=64, bos_token_id=1, eos_token_id=2),
        _text_inputs(V), dict(_TEXT_DYN), {"seq": (2, 64)}))
    cases.append(Case(
        "llama", "transformers",
        _hf("LlamaForCausalLM", "LlamaConfig", vocab_size=V, hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=64),
        _text_inputs(V), dict(_TEXT_DYN), {"seq": (2, 64)}))
    cases.append(Case(
        "qwen2", "transformers",
        _hf("Qwen2ForCausalLM", "Qwen2Config", vocab_size=V, hidden_size=32, intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            max_position_embeddings=64),
        _text_inputs(V), dict(_TEXT_DYN), {"seq": (2, 64)}))

    def t5_extra(i, b, s):
        return {"decoder_input_ids": _randint(V, (b, (5, 7)[i]), 40 + i)}
    cases.append(Case(
        "t5", "transformers",
        _hf("T5ForConditionalGeneration", "T5Config", vocab_size=V, d_model=32, d_kv=8, d_ff=64,
            num_layers=2, num_decoder_layers=2, num_heads=4, decoder_start_token_id=0),
        _text_inputs(V, extra=t5_extra),
        dict(_TEXT_DYN, decoder_input_ids={0: "batch", 1: "dec_seq"}),
        {"seq": (2, 64), "dec_seq": (2, 64)}))

    def vit_inputs(i):
        return {"pixel_values": _randn(((2, 3)[i], 3, 32, 32), 50 + i)}
    cases.append(Case(
        "hf_vit", "transformers",
        _hf("ViTForImageClassification", "ViTConfig", image_size=32, patch_size=8, hidden_size=32,
            num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=10),
        vit_inputs, {"pixel_values": {0: "batch"}}))

    def whisper_inputs(i):
        b = (2, 3)[i]
        return {"input_features": _randn((b, 16, 64), 60 + i),
                "decoder_input_ids": _randint(V, (b, (5, 7)[i]), 70 + i)}
    cases.append(Case(
        "whisper", "transformers",
        _hf("WhisperForConditionalGeneration", "WhisperConfig", vocab_size=V, num_mel_bins=16,
            encoder_layers=2, decoder_layers=2, d_model=32, encoder_attention_heads=2,
            decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
            max_source_positions=32, max_target_positions=32, pad_token_id=0,
            decoder_start_token_id=1, bos_token_id=1, eos_token_id=2),
        whisper_inputs,
        {"input_features": {0: "batch"}, "decoder_input_ids": {0: "batch", 1: "dec_seq"}},
        {"dec_seq": (2, 32)},
        note="the encoder requires exactly 2*max_source_positions frames: frames are static"))

    def w2v_inputs(i):
        return {"input_values": _randn(((2, 3)[i], (1600, 2000)[i]), 80 + i)}
    cases.append(Case(
        "wav2vec2", "transformers",
        _hf("Wav2Vec2ForCTC", "Wav2Vec2Config", vocab_size=32, hidden_size=32, num_hidden_layers=2,
            num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
            conv_kernel=(10, 3), num_feat_extract_layers=2, num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=2, do_stable_layer_norm=False,
            feat_extract_norm="group"),
        w2v_inputs, {"input_values": {0: "batch", 1: "samples"}}, {"samples": (400, 16000)}))
    return cases


def bert_base_case():
    """BERT-base-size (12 x 768, vocab 30522): the anchor benchmark's third model."""
    return Case(
        "bert_base", "transformers",
        _hf("BertModel", "BertConfig", vocab_size=30522, hidden_size=768, num_hidden_layers=12,
            num_attention_heads=12, intermediate_size=3072, max_position_embeddings=512),
        _text_inputs(30522, seqs=(16, 24)), dict(_TEXT_DYN), {"seq": (2, 512)})


def all_cases() -> List[Case]:
    return [_tv_case(n) for n in TV_MODELS] + _hf_cases()


def case_by_name(name) -> Case:
    if name == "bert_base":
        return bert_base_case()
    for c in all_cases():
        if c.name == name:
            return c
    raise KeyError(name)


# ------------------------------------------------------------------ export
def _dims(case, drop=()):
    """dynamic_shapes for torch.export.export, without the dims in `drop`."""
    from torch.export import Dim
    made = {}

    def dim(n):
        if n not in made:
            lo, hi = case.dim_ranges.get(n, (None, None))
            kw = {}
            if lo is not None:
                kw["min"] = lo
            if hi is not None:
                kw["max"] = hi
            made[n] = Dim(n, **kw)
        return made[n]

    spec = {}
    ex = case.inputs(0)
    for name in ex:
        axes = {a: dim(d) for a, d in case.dynamic.get(name, {}).items() if d not in drop}
        spec[name] = axes or None
    return spec


def dim_ladder(case):
    """The dynamic-dim sets tried in order: all dims, then batch only, then none."""
    names = sorted({d for axes in case.dynamic.values() for d in axes.values()})
    ladder = [tuple()]
    if "batch" in names and len(names) > 1:
        ladder.append(tuple(n for n in names if n != "batch"))
    ladder.append(tuple(names))
    out = []
    for drop in ladder:
        if drop not in out:
            out.append(drop)
    return out, names


def export(case, model=None, strict=False):
    """torch.export.export with the most dynamic dims torch.export accepts.

    Returns (ExportedProgram or None, info dict: dynamic dims used, attempts
    with their errors, seconds)."""
    model = model if model is not None else case.build()
    kwargs = case.inputs(0)
    ladder, names = dim_ladder(case)
    attempts = []
    for drop in ladder:
        used = [n for n in names if n not in drop]
        t0 = time.perf_counter()
        try:
            ep = torch.export.export(model, (), kwargs=kwargs, dynamic_shapes=_dims(case, drop),
                                     strict=strict)
            attempts.append({"dynamic": used, "ok": True, "seconds": round(time.perf_counter() - t0, 2)})
            return ep, {"dynamic": used, "attempts": attempts}
        except Exception as e:  # noqa: BLE001 -- recorded, the next rung is tried
            attempts.append({"dynamic": used, "ok": False, "seconds": round(time.perf_counter() - t0, 2),
                             "error": f"{type(e).__name__}: {_first_lines(str(e))}"})
            gc.collect()
    return None, {"dynamic": None, "attempts": attempts}


def decompose(ep):
    """ep.run_decompositions() (core ATen). torch 2.15 cannot decompose some
    programs: GPT-2 (any dims, even static) fails with "Cannot view a tensor
    with shape [2, 8, 32] and strides (32, 64, 1) as a tensor with shape
    (16, 32)!" -- the math decomposition of scaled_dot_product_attention gives
    its output other strides than the op's meta, and Conv1D's later x.view(-1,
    n) no longer holds. Then the default table minus sdpa is used: the core
    program keeps aten.scaled_dot_product_attention (as torch.onnx does).
    Returns (program, how: "default" | "sdpa kept", error of the default or None)."""
    try:
        return ep.run_decompositions(), "default", None
    except Exception as e:  # noqa: BLE001
        err = f"{type(e).__name__}: {_first_lines(str(e), n=2, width=400)}"
    table = torch.export.default_decompositions()
    table.pop(torch.ops.aten.scaled_dot_product_attention.default, None)
    return ep.run_decompositions(table), "sdpa kept", err


def import_pytree_types(pt2_path):
    """torch.export.load rebuilds the in/out pytree specs, so every container
    type they name (a Hugging Face ModelOutput such as
    transformers.modeling_outputs.CausalLMOutputWithCrossAttentions) must be
    registered first: import the modules the archive's specs name."""
    import importlib
    import json
    import re
    import zipfile
    with zipfile.ZipFile(pt2_path) as z:
        name = next(n for n in z.namelist() if n.endswith("models/model.json"))
        mj = json.loads(z.read(name))
    for entry in mj["graph_module"]["module_call_graph"]:
        sig = entry.get("signature") or {}
        for spec in (sig.get("in_spec", ""), sig.get("out_spec", "")):
            for t in set(re.findall(r'"type": "([\w.]+)\.\w+"', spec.replace('\\"', '"'))):
                if t != "builtins" and not t.startswith("torch"):
                    try:
                        importlib.import_module(t)
                    except ImportError:
                        pass


def load(pt2_path):
    """torch.export.load after registering the pytree types the archive names."""
    import_pytree_types(pt2_path)
    return torch.export.load(str(pt2_path))


def _first_lines(text, n=12, width=2000):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return "\n".join(lines[:n])[:width]


def flatten_outputs(out):
    """Eager outputs as a flat list of tensors (the program's output order)."""
    flat, _ = torch.utils._pytree.tree_flatten(out)
    return [t for t in flat if isinstance(t, torch.Tensor)]


def free():
    gc.collect()
