"""The model zoo: every entry is built from a config with random weights
(nothing is downloaded), put in eval mode and traced by make_zoo.py.

An entry is  name -> Entry(build, inputs, subset, note)
  build()   returns the nn.Module to trace (eval mode is applied by the caller)
  inputs    [(name, dtype, dims, shape1, shape2, high)]; a str dim is dynamic
            (the spec names it), shape2 changes every dynamic axis;
            high = exclusive upper bound for int64 inputs ("mask" = attention
            mask with padding at the end of the last row)
  subset    set of subset names the entry belongs to ("ci")
  skip      reason the entry is not attempted (reported as SKIP)
"""
import collections

import torch
import torch.nn as nn

Entry = collections.namedtuple("Entry", "build inputs subset skip family")

B, S = "batch", "seq"


def text(vocab, seq=(16, 7), batch=(2, 3), mask=True, token_types=False, ids="input_ids"):
    r = [(ids, "int64", [B, S], (batch[0], seq[0]), (batch[1], seq[1]), vocab)]
    if mask:
        r.append(("attention_mask", "int64", [B, S], (batch[0], seq[0]), (batch[1], seq[1]), "mask"))
    if token_types:
        r.append(("token_type_ids", "int64", [B, S], (batch[0], seq[0]), (batch[1], seq[1]), 2))
    return r


def image(size=224, channels=3, name="x", batch=(1, 2)):
    return [(name, "float32", [B, channels, size, size], (batch[0], channels, size, size),
             (batch[1], channels, size, size), 0)]


# ------------------------------------------------------------ transformers
def hf(model_cls, config_cls, **cfg):
    def build():
        import transformers
        config = getattr(transformers, config_cls)(torchscript=True, **cfg)
        config._attn_implementation = "eager"
        return getattr(transformers, model_cls)(config)
    return build


def hf_sub(model_cls, config_cls, **cfg):
    """A submodule class of a model, built directly (whisper encoder)."""
    def build():
        import importlib
        import transformers
        config = getattr(transformers, config_cls)(torchscript=True, **cfg)
        config._attn_implementation = "eager"
        mod = importlib.import_module(model_cls.rsplit(".", 1)[0])
        return getattr(mod, model_cls.rsplit(".", 1)[1])(config)
    return build


SMALL = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=256)
SMALL_VIS = dict(SMALL, image_size=64, patch_size=16)

MODELS = collections.OrderedDict()


def add(name, build, inputs, subset=(), skip=None, family=""):
    MODELS[name] = Entry(build, inputs, set(subset), skip, family)


# -- the models named in issue 4
add("hf_bert_tiny", hf("BertModel", "BertConfig", vocab_size=30522, hidden_size=128, num_hidden_layers=2,
                       num_attention_heads=2, intermediate_size=512, max_position_embeddings=512),
    text(30522, token_types=True), subset=["ci"], family="hf-encoder")
add("hf_gpt2", hf("GPT2LMHeadModel", "GPT2Config", n_layer=2, n_embd=128, n_head=4, vocab_size=1000,
                  n_positions=128, use_cache=False),
    text(1000, mask=False), subset=["ci"], family="hf-decoder")
add("hf_roberta", hf("RobertaModel", "RobertaConfig", vocab_size=1000, **SMALL), text(1000), family="hf-encoder")
add("hf_distilbert", hf("DistilBertModel", "DistilBertConfig", vocab_size=1000, dim=128, n_layers=2, n_heads=4,
                        hidden_dim=256), text(1000), subset=["ci"], family="hf-encoder")
add("hf_vit", hf("ViTModel", "ViTConfig", **SMALL_VIS), image(64, name="pixel_values"), subset=["ci"],
    family="hf-vision")
T5_SMALL = dict(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_heads=8)
add("hf_t5_small_encoder", hf("T5EncoderModel", "T5Config", **T5_SMALL), text(32128), family="hf-encoder")
add("hf_t5_small", hf("T5Model", "T5Config", use_cache=False, **T5_SMALL),
    text(32128) + [("decoder_input_ids", "int64", [B, 4], (2, 4), (3, 4), 32128)], family="hf-enc-dec")
# -- more transformers families
add("hf_albert", hf("AlbertModel", "AlbertConfig", vocab_size=1000, embedding_size=64, **SMALL),
    text(1000, token_types=True), family="hf-encoder")
add("hf_electra", hf("ElectraModel", "ElectraConfig", vocab_size=1000, embedding_size=64, **SMALL),
    text(1000, token_types=True), family="hf-encoder")
add("hf_xlm_roberta", hf("XLMRobertaModel", "XLMRobertaConfig", vocab_size=1000, **SMALL), text(1000),
    family="hf-encoder")
add("hf_mpnet", hf("MPNetModel", "MPNetConfig", vocab_size=1000, **SMALL), text(1000), family="hf-encoder")
add("hf_mobilebert", hf("MobileBertModel", "MobileBertConfig", vocab_size=1000, hidden_size=128,
                        num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, embedding_size=64,
                        intra_bottleneck_size=64, true_hidden_size=64), text(1000, token_types=True),
    family="hf-encoder")
class _NoCtx:
    """Stand-in for the autograd ctx when a Function's forward is called as code."""
    def save_for_backward(self, *a):
        pass


def deberta_v2(**cfg):
    """DeBERTa-v2/v3. Its masked softmax `XSoftmax` is a torch.autograd.Function:
    torch.jit.trace records it as prim::PythonOp, which a TorchScript file cannot
    hold ("Could not export Python function call 'XSoftmax'"). For tracing, the
    model module's `XSoftmax.apply` runs the Function's own forward code (the same
    ATen ops: masked_fill, softmax, masked_fill_), so the file holds them."""
    build_model = hf("DebertaV2Model", "DebertaV2Config", **cfg)

    def build():
        from transformers.models.deberta_v2 import modeling_deberta_v2 as md
        xs = md.XSoftmax

        class XSoftmaxAsCode:
            @staticmethod
            def apply(x, mask, dim):
                return xs.forward(_NoCtx(), x, mask, dim)
        md.XSoftmax = XSoftmaxAsCode
        return build_model()
    return build


# the deberta-v3-base attention setup: disentangled relative attention with log buckets
add("hf_deberta_v2", deberta_v2(vocab_size=1000, relative_attention=True, pos_att_type="p2c|c2p",
                                position_buckets=256, max_relative_positions=-1, norm_rel_ebd="layer_norm",
                                share_att_key=True, **SMALL), text(1000), family="hf-encoder")
add("hf_squeezebert", hf("SqueezeBertModel", "SqueezeBertConfig", vocab_size=1000, embedding_size=128, **SMALL),
    text(1000), family="hf-encoder")
add("hf_bart", hf("BartModel", "BartConfig", vocab_size=1000, d_model=128, encoder_layers=2, decoder_layers=2,
                  encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256,
                  use_cache=False),
    text(1000) + [("decoder_input_ids", "int64", [B, 5], (2, 5), (3, 5), 1000)], family="hf-enc-dec")
add("hf_marian", hf("MarianModel", "MarianConfig", vocab_size=1000, d_model=128, encoder_layers=2,
                    decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=256,
                    decoder_ffn_dim=256, use_cache=False, pad_token_id=0, decoder_start_token_id=0),
    text(1000) + [("decoder_input_ids", "int64", [B, 5], (2, 5), (3, 5), 1000)], family="hf-enc-dec")
add("hf_opt", hf("OPTModel", "OPTConfig", vocab_size=1000, hidden_size=128, num_hidden_layers=2,
                 num_attention_heads=4, ffn_dim=256, word_embed_proj_dim=128, max_position_embeddings=128,
                 use_cache=False), text(1000), family="hf-decoder")
add("hf_gpt_neo", hf("GPTNeoModel", "GPTNeoConfig", vocab_size=1000, hidden_size=128, num_layers=2,
                     num_heads=4, attention_types=[[["global", "local"], 1]], window_size=8,
                     max_position_embeddings=128, use_cache=False), text(1000, mask=False), family="hf-decoder")
LLAMA = dict(vocab_size=1000, hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=128, use_cache=False)
add("hf_llama", hf("LlamaModel", "LlamaConfig", **LLAMA), text(1000), family="hf-decoder")
add("hf_mistral", hf("MistralModel", "MistralConfig", sliding_window=64, **LLAMA), text(1000), family="hf-decoder")
add("hf_qwen2", hf("Qwen2Model", "Qwen2Config", **LLAMA), text(1000), family="hf-decoder")
add("hf_gpt_neox", hf("GPTNeoXModel", "GPTNeoXConfig", vocab_size=1000, hidden_size=128, num_hidden_layers=2,
                      num_attention_heads=4, intermediate_size=256, max_position_embeddings=128, use_cache=False),
    text(1000), family="hf-decoder")
add("hf_bloom", hf("BloomModel", "BloomConfig", vocab_size=1000, hidden_size=128, n_layer=2, n_head=4,
                   use_cache=False), text(1000, mask=False, ids="input"), family="hf-decoder")
add("hf_phi", hf("PhiModel", "PhiConfig", vocab_size=1000, hidden_size=128, intermediate_size=256,
                 num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=128, use_cache=False),
    text(1000), family="hf-decoder")
add("hf_whisper_encoder", hf_sub("transformers.models.whisper.modeling_whisper.WhisperEncoder", "WhisperConfig",
                                 d_model=128, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=256,
                                 num_mel_bins=80, max_source_positions=50),
    [("input_features", "float32", [B, 80, 100], (1, 80, 100), (2, 80, 100), 0)], family="hf-audio")
add("hf_clip_vision", hf("CLIPVisionModel", "CLIPVisionConfig", **SMALL_VIS), image(64, name="pixel_values"),
    family="hf-vision")
add("hf_deit", hf("DeiTModel", "DeiTConfig", **SMALL_VIS), image(64, name="pixel_values"), family="hf-vision")
add("hf_beit", hf("BeitModel", "BeitConfig", use_relative_position_bias=True, **SMALL_VIS),
    image(64, name="pixel_values"), family="hf-vision")
add("hf_dinov2", hf("Dinov2Model", "Dinov2Config", hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                    image_size=64, patch_size=16), image(64, name="pixel_values"), family="hf-vision")
add("hf_swin", hf("SwinModel", "SwinConfig", image_size=64, patch_size=4, embed_dim=32, depths=[2, 2],
                  num_heads=[2, 4], window_size=4), image(64, name="pixel_values"), family="hf-vision")
add("hf_convnext", hf("ConvNextModel", "ConvNextConfig", hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 2, 1]),
    image(64, name="pixel_values"), family="hf-vision")
add("hf_resnet", hf("ResNetModel", "ResNetConfig", hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 1, 1],
                    embedding_size=32), image(64, name="pixel_values"), family="hf-vision")
add("hf_segformer", hf("SegformerModel", "SegformerConfig", hidden_sizes=[16, 32, 64, 128], num_encoder_blocks=4,
                       depths=[1, 1, 1, 1], num_attention_heads=[1, 2, 4, 8]), image(64, name="pixel_values"), family="hf-vision")
add("hf_mobilevit", hf("MobileViTModel", "MobileViTConfig", image_size=64), image(64, name="pixel_values"),
    family="hf-vision")
add("hf_wav2vec2", hf("Wav2Vec2Model", "Wav2Vec2Config", hidden_size=64, num_hidden_layers=2,
                      num_attention_heads=4, intermediate_size=128, conv_dim=[32, 32, 32], conv_stride=[5, 2, 2],
                      conv_kernel=[10, 3, 3], num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
                      do_stable_layer_norm=False),
    [("input_values", "float32", [B, "samples"], (1, 4000), (2, 3200), 0)], family="hf-audio")


# ------------------------------------------------------------ torchvision
def calibrate_batchnorm(m, size):
    """Random init leaves BatchNorm running statistics at (0, 1), which makes the
    activations of deep BN networks (MobileNet, EfficientNet) vanish to ~1e-14
    and parity trivial. One train-mode pass on random images sets them to real
    batch statistics."""
    bns = [b for b in m.modules() if isinstance(b, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for b in bns:
        b.momentum = 1.0
    m.train()
    with torch.no_grad():
        m(torch.randn(4, 3, size, size, generator=torch.Generator().manual_seed(2)))
    m.eval()


def tv(name, size=224, **kw):
    def build():
        import torchvision
        m = getattr(torchvision.models, name)(**kw)
        calibrate_batchnorm(m, size)
        # zero-initialised classifier heads would make parity trivial
        for mod in m.modules():
            if isinstance(mod, nn.Linear) and mod.weight.abs().sum() == 0:
                nn.init.normal_(mod.weight, std=0.02)
                nn.init.normal_(mod.bias, std=0.02) if mod.bias is not None else None
        return m
    return build


TV_CI = {"resnet18", "mobilenet_v3_small"}
TV_NAMED = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "convnext_tiny",
            "vit_b_16"]
TV_ALL = ['alexnet', 'convnext_base', 'convnext_large', 'convnext_small', 'convnext_tiny', 'densenet121',
          'densenet161', 'densenet169', 'densenet201', 'efficientnet_b0', 'efficientnet_b1', 'efficientnet_b2',
          'efficientnet_b3', 'efficientnet_b4', 'efficientnet_b5', 'efficientnet_b6', 'efficientnet_b7',
          'efficientnet_v2_l', 'efficientnet_v2_m', 'efficientnet_v2_s', 'googlenet', 'inception_v3', 'maxvit_t',
          'mnasnet0_5', 'mnasnet0_75', 'mnasnet1_0', 'mnasnet1_3', 'mobilenet_v2', 'mobilenet_v3_large',
          'mobilenet_v3_small', 'regnet_x_16gf', 'regnet_x_1_6gf', 'regnet_x_32gf', 'regnet_x_3_2gf',
          'regnet_x_400mf', 'regnet_x_800mf', 'regnet_x_8gf', 'regnet_y_128gf', 'regnet_y_16gf', 'regnet_y_1_6gf',
          'regnet_y_32gf', 'regnet_y_3_2gf', 'regnet_y_400mf', 'regnet_y_800mf', 'regnet_y_8gf', 'resnet101',
          'resnet152', 'resnet18', 'resnet34', 'resnet50', 'resnext101_32x8d', 'resnext101_64x4d',
          'resnext50_32x4d', 'shufflenet_v2_x0_5', 'shufflenet_v2_x1_0', 'shufflenet_v2_x1_5',
          'shufflenet_v2_x2_0', 'squeezenet1_0', 'squeezenet1_1', 'swin_b', 'swin_s', 'swin_t', 'swin_v2_b',
          'swin_v2_s', 'swin_v2_t', 'vgg11', 'vgg11_bn', 'vgg13', 'vgg13_bn', 'vgg16', 'vgg16_bn', 'vgg19',
          'vgg19_bn', 'vit_b_16', 'vit_b_32', 'vit_h_14', 'vit_l_16', 'vit_l_32', 'wide_resnet101_2',
          'wide_resnet50_2']
TV_KW = {"googlenet": dict(aux_logits=False, init_weights=True), "inception_v3": dict(aux_logits=False, init_weights=True)}
# the largest (slow to trace and export on a small machine) go last
TV_LARGE = {"vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "convnext_base",
            "convnext_large", "regnet_x_16gf", "regnet_x_32gf", "regnet_y_16gf", "regnet_y_32gf", "vit_b_32",
            "vit_l_16", "vit_l_32", "efficientnet_b6", "efficientnet_b7", "efficientnet_v2_l", "efficientnet_v2_m",
            "resnext101_32x8d", "resnext101_64x4d", "wide_resnet101_2", "wide_resnet50_2", "swin_b", "swin_v2_b",
            "resnet152", "regnet_x_8gf", "regnet_y_8gf", "densenet161", "swin_s", "swin_v2_s",
            # over 2 GiB of weights (632M / 645M parameters): one ONNX protobuf
            # cannot hold them, the exporter writes external data (OUT.onnx.data)
            "vit_h_14", "regnet_y_128gf"}
_TV_ORDER = TV_NAMED + [n for n in TV_ALL if n not in TV_NAMED and n not in TV_LARGE] + \
    [n for n in TV_ALL if n not in TV_NAMED and n in TV_LARGE]
for _n in _TV_ORDER:
    _skip = None
    _size = 299 if _n == "inception_v3" else 224
    add("tv_" + _n, tv(_n, size=_size, **TV_KW.get(_n, {})), image(_size),
        subset=["ci"] if _n in TV_CI else [], skip=_skip, family="torchvision")


# ------------------------------------------------------------ torch.nn
def transformer_encoder():
    layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def transformer_encoder_norm_first():
    layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, batch_first=True, norm_first=True,
                                       activation="gelu")
    return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(64), enable_nested_tensor=False)


def transformer_full():
    return nn.Transformer(d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=128,
                          batch_first=True)


add("nn_transformer_encoder", transformer_encoder, [("src", "float32", [B, S, 64], (2, 10, 64), (3, 6, 64), 0)],
    subset=["ci"], family="torch.nn")
add("nn_transformer_encoder_norm_first", transformer_encoder_norm_first,
    [("src", "float32", [B, S, 64], (2, 10, 64), (3, 6, 64), 0)], family="torch.nn")
add("nn_transformer", transformer_full,
    [("src", "float32", [B, S, 64], (2, 10, 64), (3, 6, 64), 0),
     ("tgt", "float32", [B, "tgt_seq", 64], (2, 7, 64), (3, 5, 64), 0)], family="torch.nn")


# ------------------------------------------------------------ torchaudio
def ta(name, **kw):
    def build():
        import torchaudio
        m = getattr(torchaudio.models, name)(**kw)
        fold_weight_norm(m)
        return FirstOutput.wrap(m)
    return build


def fold_weight_norm(m):
    for mod in m.modules():
        if hasattr(mod, "weight_g") and hasattr(mod, "weight_v"):
            torch.nn.utils.remove_weight_norm(mod)


class FirstOutput:
    """torchaudio's Wav2Vec2Model returns (features, lengths): trace a forward
    that keeps the first output, without adding a wrapper module level."""

    @staticmethod
    def wrap(m):
        cls = type(m)
        orig = cls.forward

        class First(cls):
            def forward(self, waveforms):
                return orig(self, waveforms)[0]
        First.__name__ = cls.__name__
        First.__qualname__ = cls.__qualname__
        First.__module__ = cls.__module__
        m.__class__ = First
        return m


AUDIO = [("waveforms", "float32", [B, "samples"], (1, 8000), (2, 6400), 0)]
add("ta_wav2vec2_base", ta("wav2vec2_base"), AUDIO, family="torchaudio")
add("ta_hubert_base", ta("hubert_base"), AUDIO, family="torchaudio")
add("ta_wav2vec2_small", ta("wav2vec2_model", extractor_mode="group_norm", extractor_conv_layer_config=None,
                            extractor_conv_bias=False, encoder_embed_dim=96, encoder_projection_dropout=0.1,
                            encoder_pos_conv_kernel=32, encoder_pos_conv_groups=4, encoder_num_layers=2,
                            encoder_num_heads=4, encoder_attention_dropout=0.1, encoder_ff_interm_features=192,
                            encoder_ff_interm_dropout=0.1, encoder_dropout=0.1, encoder_layer_norm_first=False,
                            encoder_layer_drop=0.1, aux_num_out=None),
    AUDIO, subset=["ci"], family="torchaudio")

# run order: transformers, torch.nn, torchaudio, then torchvision (largest last)
MODELS = collections.OrderedDict(sorted(MODELS.items(), key=lambda kv: kv[0].startswith("tv_")))
