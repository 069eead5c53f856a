#!/usr/bin/env python3
"""Sweep 11: real programs of kinds none of the earlier sweeps hold
(pt2_coverage.py, pt2_coverage_wider.py, pt2_sweep.py, pt2_sweep10.py):
state-space and hybrid decoders (Mamba2, FalconMamba, RWKV, Jamba, Zamba2,
Bamba, RecurrentGemma, LFM2's short convolutions), decoders with their own
twists (OLMo, Nemotron's LayerNorm1P, BitNet's quantised linears,
Persimmon, GLM), multimodal towers (Qwen2-VL / Qwen2.5-VL vision with 3-D
rope and window attention, LLaVA, PaliGemma, Gemma 3, Idefics3, BLIP-2),
dense prediction and detection (Depth Anything, GLPN, Mask2Former, SAM, Conditional DETR,
Deformable DETR, RT-DETR, all on transformers backbones), vision encoders
(SwiftFormer, Hiera, Perceiver, LayoutLMv3), text encoders (XLNet,
Reformer, FNet, CANINE, Longformer, Nystromformer, SqueezeBERT,
MobileBERT), audio (EnCodec, DAC, CLAP's audio tower, Wav2Vec2-BERT,
SpeechT5), image-to-text (Pix2Struct, TrOCR), long seq2seq (PEGASUS-X,
BigBird-Pegasus, LED), time series (PatchTST, PatchTSMixer), torchvision
RAFT, diffusers' UNet2DConditionModel and AutoencoderKL, later additions
(Swin2SR, ViTMAE with its noise as an input, DAB-DETR, Table Transformer,
UnivNet, MusicGen's decoder, GIT, Zamba, Falcon-H1, GraniteMoeHybrid,
DINOv3, torchvision's SSDlite and FCOS with their NMS post-processing)
and op-level programs (3-D adaptive pools, rare reductions and losses,
embedding_bag modes with per-sample weights, CTC loss).

Random weights, small configurations, no downloads. diffusers
and scipy (Mask2Former's loss module imports it) were installed into the
scratch venv /work/venvs/pt2 (`pip install diffusers scipy`; neither is a
build or test dependency); the programs needing them report `torch fails`
where they are absent.

Each goes through pt2_sweep.run() (pt2_coverage.run() plus the module-record
check): saved as exported (TRAINING) and after run_decompositions() (core),
converted by `modelexport export`, checked in ONNX Runtime at two shapes
against eager PyTorch, every node with its module record.

    /work/venvs/pt2/bin/python benchmarks/pt2_sweep11.py [--only a,b] [--anchor] [--markdown FILE]

PT2_SWEEP_JSON=FILE also writes the rows as JSON. Results: docs/pt2-sweep11.md.
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
from pt2_coverage import AUTO, fn, lm, vision  # noqa: E402

BD = {0: AUTO, 1: AUTO}
B = {0: AUTO}
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


def lmb(cfg, model, seq=7, **kw):
    """A decoder whose sequence torch.export specialises (recurrences unrolled
    over time): dynamic batch, the same length at both shapes."""
    def build():
        return (C._lm(cfg, model, **kw), (torch.randint(0, 64, (2, seq)),), (torch.randint(0, 64, (3, seq)),), (B,))
    return build


def img(n, size=32, c=3):
    return (torch.randn(n, c, size, size),)


class Pick(nn.Module):
    """Calls the model with keyword inputs and keeps the named outputs."""

    def __init__(self, m, names, keys, **fixed):
        super().__init__()
        self.m, self.names, self.keys, self.fixed = m, names, keys, fixed

    def forward(self, *xs):
        out = self.m(**dict(zip(self.names, xs)), **self.fixed)
        return tuple(getattr(out, k) if not isinstance(out, (tuple, list)) else out[k] for k in self.keys)


def pick(factory, names, keys, a, b, dyn, **fixed):
    def build():  # forward(*xs): the shapes of the one variadic parameter
        return Pick(factory(), names, keys, **fixed), a, b, (tuple(dyn),)
    return build


def cfgm(model, cfg, **kw):
    return lambda: getattr(_T(), model)(getattr(_T(), cfg)(**kw))


# ------------------------------------------------------------------ multimodal
class QwenVision(nn.Module):
    """The Qwen2-VL / Qwen2.5-VL vision tower: flattened patches and their
    (t, h, w) grid; the grid is a constant of the program (it drives
    Python loops), the patch rows of the two shapes are the same count."""

    def __init__(self, model, grid):
        super().__init__()
        self.m, self.grid = model, grid

    def forward(self, patches):
        out = self.m(patches, grid_thw=torch.tensor(self.grid))
        return out.pooler_output if hasattr(out, "pooler_output") and out.pooler_output is not None else out.last_hidden_state


def qwen_vision(kind):
    def build():
        T = _T()
        if kind == "qwen2_vl":
            from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VisionTransformerPretrainedModel
            cfg = T.Qwen2VLVisionConfig(depth=2, embed_dim=32, hidden_size=32, mlp_ratio=2, num_heads=4, in_channels=3,
                                        patch_size=4, spatial_merge_size=2, temporal_patch_size=2)
            m = Qwen2VisionTransformerPretrainedModel._from_config(cfg)
        else:
            from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VisionTransformerPretrainedModel
            cfg = T.Qwen2_5_VLVisionConfig(depth=2, hidden_size=32, intermediate_size=64, num_heads=4, in_channels=3,
                                           patch_size=4, spatial_merge_size=2, temporal_patch_size=2, window_size=16,
                                           out_hidden_size=32, fullatt_block_indexes=[1])
            m = Qwen2_5_VisionTransformerPretrainedModel._from_config(cfg)
        grid = [[1, 8, 8]]
        rows = 64
        return QwenVision(m, grid), (torch.randn(rows, 3 * 2 * 4 * 4),), (torch.randn(rows, 3 * 2 * 4 * 4),), None
    return build


class VisionLM(nn.Module):
    """A vision-language model's prefill: image tokens in the text replaced by
    the projected image features (masked_scatter), the LM's logits."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, pixels, mask):
        return self.m(input_ids=ids, pixel_values=pixels, attention_mask=mask, use_cache=False).logits


VIS = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=32, patch_size=8)


def vlm(kind):
    def build():
        T = _T()
        text = dict(vocab_size=80, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, max_position_embeddings=64)
        if kind == "llava":
            cfg = T.LlavaConfig(vision_config=dict(model_type="clip_vision_model", hidden_size=32, intermediate_size=64,
                                                   num_hidden_layers=2, num_attention_heads=4, image_size=32, patch_size=8,
                                                   projection_dim=32),
                                text_config=dict(model_type="llama", **text), image_token_index=70, vision_feature_layer=-1,
                                vision_feature_select_strategy="default", image_seq_length=16)
            m, n_img = T.LlavaForConditionalGeneration(cfg), 16
        elif kind == "gemma3_vlm":
            cfg = T.Gemma3Config(text_config=dict(model_type="gemma3_text", head_dim=8, **text),
                                 vision_config=dict(model_type="siglip_vision_model", **VIS), mm_tokens_per_image=4,
                                 image_token_index=70, boi_token_index=71, eoi_token_index=72)
            m, n_img = T.Gemma3ForConditionalGeneration(cfg), 4
        elif kind == "idefics3":
            cfg = T.Idefics3Config(text_config=dict(model_type="llama", **text), vision_config=dict(**VIS), scale_factor=2,
                                   image_token_id=70)
            m, n_img = T.Idefics3ForConditionalGeneration(cfg), 4
        elif kind == "blip2":
            cfg = T.Blip2Config(vision_config=dict(**VIS),
                                qformer_config=dict(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                                    intermediate_size=64, encoder_hidden_size=32),
                                text_config=dict(model_type="opt", vocab_size=80, hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                                                 num_attention_heads=4, word_embed_proj_dim=32, max_position_embeddings=64),
                                num_query_tokens=4, image_token_index=70)
            m, n_img = T.Blip2ForConditionalGeneration(cfg), 4
        else:
            cfg = T.PaliGemmaConfig(vision_config=dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=64,
                                                       num_hidden_layers=2, num_attention_heads=4, image_size=32, patch_size=8,
                                                       projection_dim=32),
                                    text_config=dict(model_type="gemma", head_dim=8, **text), image_token_index=70,
                                    projection_dim=32, hidden_size=32)
            m, n_img = T.PaliGemmaForConditionalGeneration(cfg), 16

        def args(b, t):
            ids = torch.cat([torch.full((b, n_img), 70), torch.randint(3, 64, (b, t))], 1)
            mask = torch.ones_like(ids)
            return ids, torch.randn(b, 1, 3, 32, 32) if kind == "idefics3" else torch.randn(b, 3, 32, 32), mask
        # torch.export pins the image batch (the image-token count check ties it to the features): the text varies
        s = torch.export.Dim("text", min=2, max=32)
        return VisionLM(m), args(2, 5), args(2, 8), ({1: n_img + s}, None, {1: n_img + s})
    return build


# ------------------------------------------------------------------ dense prediction / detection
RESNET = dict(model_type="resnet", embedding_size=8, hidden_sizes=[8, 16, 16, 32], depths=[1, 1, 1, 1], layer_type="basic",
              out_features=["stage2", "stage3", "stage4"])
DETR = dict(use_timm_backbone=False, use_pretrained_backbone=False, d_model=32, encoder_layers=1, decoder_layers=1,
            encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=6,
            num_labels=3)


def detr_like(model, cfg, size=64, batch=3, reinit=False, **kw):
    def factory():
        m = cfgm(model, cfg, **kw)()
        if reinit:  # RT-DETR's initial query scores are all equal (top-k among ties): random weights everywhere
            with torch.no_grad():
                for p in m.parameters():
                    p.normal_(0, 0.2)
        return m
    return pick(factory, ["pixel_values"], ["logits", "pred_boxes"], img(2, size), img(batch, size), (B,))


class SamDecoder(nn.Module):
    """SAM: image encoder, prompt encoder on points, mask decoder."""

    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.SamModel(T.SamConfig(
            vision_config=dict(hidden_size=32, output_channels=16, num_hidden_layers=2, num_attention_heads=4, image_size=64,
                               patch_size=8, mlp_dim=64, window_size=4, global_attn_indexes=[1], num_pos_feats=8),
            prompt_encoder_config=dict(hidden_size=16, image_size=64, patch_size=8, mask_input_channels=4),
            mask_decoder_config=dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, mlp_dim=32,
                                     iou_head_hidden_dim=16)))

    def forward(self, pixels, points, labels):
        out = self.m(pixel_values=pixels, input_points=points, input_labels=labels, multimask_output=True)
        return out.iou_scores, out.pred_masks


# ------------------------------------------------------------------ text / seq2seq
def enc(model, cfg, lens=(7, 11), **kw):
    def build():
        T = _T()
        base = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                    max_position_embeddings=64)
        m = getattr(T, model)(getattr(T, cfg)(**{**base, **kw}))

        def mk(b, s):
            mask = torch.ones(b, s, dtype=torch.long)
            mask[0, -2:] = 0
            return torch.randint(1, 64, (b, s)), mask
        return m, mk(2, lens[0]), mk(3, lens[1]), (BD, BD)
    return build


S2S = dict(vocab_size=64, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
           encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64)


def seq2seq(model, cfg, lens=((7, 5), (9, 6)), dyn_seq=True, **kw):
    def build():
        T = _T()
        m = getattr(T, model)(getattr(T, cfg)(**kw))

        def a(b, s, t):
            mask = torch.ones(b, s, dtype=torch.long)
            mask[0, -2:] = 0
            return torch.randint(3, 64, (b, s)), mask, torch.randint(3, 64, (b, t))
        d = (BD, BD, BD) if dyn_seq else (B, B, BD)
        return C.Seq2Seq(m), a(2, *lens[0]), a(3, *lens[1]), d
    return build


class ImageToText(nn.Module):
    def __init__(self, m, key="pixel_values"):
        super().__init__()
        self.m, self.key = m, key

    def forward(self, pixels, dec):
        return self.m(**{self.key: pixels}, decoder_input_ids=dec, use_cache=False).logits


def trocr():
    T = _T()
    enc_cfg = T.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                          intermediate_size=64)
    dec_cfg = T.TrOCRConfig(vocab_size=64, d_model=32, decoder_layers=2, decoder_attention_heads=4, decoder_ffn_dim=64,
                            max_position_embeddings=64, cross_attention_hidden_size=32, use_learned_position_embeddings=False)
    m = T.VisionEncoderDecoderModel(config=T.VisionEncoderDecoderConfig.from_encoder_decoder_configs(enc_cfg, dec_cfg))
    m.config.decoder_start_token_id, m.config.pad_token_id = 2, 1
    return (ImageToText(m), (torch.randn(2, 3, 32, 32), torch.randint(3, 64, (2, 5))),
            (torch.randn(3, 3, 32, 32), torch.randint(3, 64, (3, 7))), (B, BD))


class Pix2Struct(nn.Module):
    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.Pix2StructForConditionalGeneration(T.Pix2StructConfig(
            text_config=dict(vocab_size=64, hidden_size=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4),
            vision_config=dict(hidden_size=32, patch_embed_hidden_size=48, d_kv=8, d_ff=64, num_hidden_layers=2,
                               num_attention_heads=4, seq_len=64)))

    def forward(self, patches, mask, dec):
        return self.m(flattened_patches=patches, attention_mask=mask, decoder_input_ids=dec, use_cache=False).logits


def pix2struct():
    def a(b, n, t):
        mask = torch.ones(b, n)
        mask[0, -3:] = 0
        rows = torch.arange(n) // 4 + 1
        cols = torch.arange(n) % 4 + 1
        pos = torch.stack([rows, cols], -1).float()[None].expand(b, n, 2)
        return torch.cat([pos, torch.randn(b, n, 48)], -1), mask, torch.randint(3, 64, (b, t))
    return Pix2Struct(), a(2, 12, 5), a(3, 16, 6), (BD, BD, BD)


class Seq2SeqEmb(nn.Module):
    """SpeechT5 speech-to-text: a waveform in, token logits."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, wave, dec):
        return self.m(input_values=wave, decoder_input_ids=dec, use_cache=False).logits


def speecht5():
    T = _T()
    m = T.SpeechT5ForSpeechToText(T.SpeechT5Config(
        vocab_size=64, hidden_size=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=64, decoder_ffn_dim=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
        num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, max_speech_positions=256, max_text_positions=64,
        speech_decoder_prenet_units=16))
    return Seq2SeqEmb(m), (torch.randn(2, 800), torch.randint(3, 64, (2, 5))), (torch.randn(3, 1200), torch.randint(3, 64, (3, 7))), (BD, BD)


# ------------------------------------------------------------------ audio
W2V = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


class Codec(nn.Module):
    """A neural audio codec's encode + quantise + decode (EnCodec / DAC)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, wave):
        out = self.m(wave)
        return out.audio_values if hasattr(out, "audio_values") else out[0]


# ------------------------------------------------------------------ time series
class PatchTS(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, past):
        return self.m(past_values=past).last_hidden_state


# ------------------------------------------------------------------ torchvision / diffusers
class Raft(nn.Module):
    def __init__(self):
        super().__init__()
        from torchvision.models.optical_flow import raft_small
        self.m = raft_small(weights=None)

    def forward(self, a, b):
        return self.m(a, b, num_flow_updates=2)[-1]


class TinyUNet(nn.Module):
    """diffusers' UNet2DConditionModel: a cross-attention UNet with a timestep embedding."""

    def __init__(self):
        super().__init__()
        from diffusers import UNet2DConditionModel
        self.m = UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
                                      block_out_channels=(16, 32), down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                      up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"), cross_attention_dim=16,
                                      attention_head_dim=4, norm_num_groups=8)

    def forward(self, x, t, ctx):
        return self.m(x, t, encoder_hidden_states=ctx).sample


class TinyVAE(nn.Module):
    """diffusers' AutoencoderKL: encode to the posterior mean, decode."""

    def __init__(self):
        super().__init__()
        from diffusers import AutoencoderKL
        self.m = AutoencoderKL(in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",) * 2,
                               up_block_types=("UpDecoderBlock2D",) * 2, block_out_channels=(16, 32), latent_channels=4,
                               norm_num_groups=8, layers_per_block=1)

    def forward(self, x):
        z = self.m.encode(x).latent_dist.mean
        return z, self.m.decode(z).sample


class MaeNoise(nn.Module):
    """ViTMAE with its masking noise as an input (argsort, gather of kept patches)."""

    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.ViTMAEModel(T.ViTMAEConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
                                              num_attention_heads=4, intermediate_size=64, mask_ratio=0.5))

    def forward(self, x, noise):
        out = self.m(pixel_values=x, noise=noise)
        return out.last_hidden_state, out.mask, out.ids_restore


class UnivNet(nn.Module):
    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.UnivNetModel(T.UnivNetConfig(model_in_channels=8, model_hidden_channels=8, num_mel_bins=16,
                                                resblock_kernel_sizes=[3, 3], resblock_stride_sizes=[4, 4],
                                                resblock_dilation_sizes=[[1, 3], [1, 3]], kernel_predictor_num_blocks=1,
                                                kernel_predictor_hidden_channels=8))

    def forward(self, mel, noise):
        return self.m(input_features=mel, noise_sequence=noise).waveforms


class GitCaption(nn.Module):
    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.GitForCausalLM(T.GitConfig(vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                                                 num_attention_heads=4, image_size=32, patch_size=8),
                                              vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                              intermediate_size=64, max_position_embeddings=64))

    def forward(self, ids, pixels):
        return self.m(input_ids=ids, pixel_values=pixels, use_cache=False).logits


class TvDetector(nn.Module):
    """A torchvision detector in eval mode, post-processing (box decoding, batched NMS) included."""

    def __init__(self, name):
        super().__init__()
        import torchvision as tv
        self.m = getattr(tv.models.detection, name)(weights=None, weights_backbone=None, num_classes=3)

    def forward(self, x):
        d = self.m(list(x))[0]
        return d["boxes"], d["scores"], d["labels"]


# ------------------------------------------------------------------ op programs
class Pool3d(nn.Module):
    def forward(self, x):
        return (F.adaptive_avg_pool3d(x, (2, 3, 1)), F.adaptive_max_pool3d(x, (1, 2, 3)), F.avg_pool3d(x, 2, ceil_mode=True),
                F.max_pool3d(x, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)), F.lp_pool3d(x.abs(), 2, 2),
                F.interpolate(x, scale_factor=(1, 2, 2), mode="trilinear"), F.adaptive_avg_pool1d(x.flatten(2), 5),
                F.lp_pool1d(x.flatten(2).abs(), 3, 4), F.max_pool3d(x, 2, return_indices=True)[1])


class Reductions(nn.Module):
    def forward(self, x, y):
        return (torch.logcumsumexp(x, 1), torch.cummin(x, 0).indices, torch.nansum(x.masked_fill(x > 1, float("nan")), 1),
                torch.std_mean(x, 1, keepdim=True)[0], torch.var(x, (0, 1), correction=2), x.mode(1).values,
                torch.quantile(x, 0.3, dim=1), torch.nanmedian(x, 0).values, torch.trapezoid(x, dim=1), torch.cumprod(x, 0),
                torch.prod(x, 1), torch.all(x > -2, 1), torch.any(x > 1, 0), torch.argmin(y, 1, keepdim=True),
                torch.linalg.vector_norm(x, ord=float("inf"), dim=1), torch.count_nonzero(x > 0), torch.amin(x, 1),
                F.log_softmax(x, 0), torch.special.entr(x.abs()), torch.special.log_ndtr(x), torch.special.i0(x),
                torch.special.ndtri(torch.sigmoid(x)), torch.lgamma(x.abs() + 0.5), torch.digamma(x.abs() + 0.5))


class Losses(nn.Module):
    def forward(self, x, y, t):
        p = x.softmax(-1)
        return (F.cross_entropy(x, t, label_smoothing=0.1), F.cross_entropy(x, t, reduction="none", ignore_index=2),
                F.nll_loss(x.log_softmax(-1), t, weight=torch.linspace(0.5, 1.5, x.shape[-1])), F.kl_div(p.log(), y.softmax(-1),
                                                                                               reduction="batchmean"),
                F.smooth_l1_loss(x, y, beta=0.5), F.huber_loss(x, y, delta=0.7), F.binary_cross_entropy(p, y.sigmoid()),
                F.binary_cross_entropy_with_logits(x, y.sigmoid(), pos_weight=torch.ones(x.shape[-1]) * 2),
                F.margin_ranking_loss(x[:, 0], y[:, 0], torch.sign(x[:, 1])), F.soft_margin_loss(x, torch.sign(y)),
                F.cosine_embedding_loss(x, y, torch.sign(x[:, 0])), F.poisson_nll_loss(x, y.abs()),
                F.triplet_margin_loss(x, y, x.flip(0)), F.hinge_embedding_loss(x, torch.sign(y)),
                F.multilabel_soft_margin_loss(x, (y > 0).float()), F.multi_margin_loss(x, t), F.l1_loss(x, y, reduction="sum"))


class Ctc(nn.Module):
    def forward(self, logp, targets, in_len, tgt_len):
        lp = logp.log_softmax(-1)
        return (F.ctc_loss(lp, targets, in_len, tgt_len, blank=0, reduction="none", zero_infinity=True),
                F.ctc_loss(lp, targets, in_len, tgt_len, blank=0, reduction="mean"))


class Bags(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.EmbeddingBag(20, 6, mode="sum")
        self.m = nn.EmbeddingBag(20, 6, mode="max", padding_idx=0)
        self.n = nn.EmbeddingBag(20, 6, mode="mean", max_norm=1.0)

    def forward(self, idx, offsets, w):
        return (self.e(idx, offsets, per_sample_weights=w), self.m(idx, offsets), self.e(idx.view(-1, 3)),
                self.m(idx.view(-1, 3)), F.embedding_bag(idx, self.e.weight, offsets, mode="sum", include_last_offset=True))


class Shuffles(nn.Module):
    def forward(self, x):
        return (F.channel_shuffle(x, 2), F.pixel_shuffle(x, 2), nn.ChannelShuffle(4)(x), torch.roll(x, (1, -2), (2, 3)),
                x.flip(-1, -2), torch.rot90(x, -1, (2, 3)), F.pad(x, (1, 2, 0, 1), mode="circular"), F.pad(x, (2, 2, 1, 1), mode="reflect"),
                F.pad(x, (1, 1, 2, 0), mode="replicate"), torch.tril_indices(3, 3).float().sum() + x.sum(),
                torch.block_diag(x[0, 0], x[0, 1]), torch.cartesian_prod(x[0, 0, 0], x[0, 0, 1, :2]),
                torch.combinations(x[0, 0, 0, :4], 2), torch.vander(x[0, 0, 0], 3), torch.meshgrid(x[0, 0, 0], x[0, 0, :, 0], indexing="xy")[0])


class SpecialRare(nn.Module):
    def forward(self, x, y):
        p = x.abs() + 0.5
        return (torch.special.i0e(x), torch.special.i1(x), torch.special.i1e(x), torch.special.erfcx(x),
                torch.special.xlog1py(p, y.abs()), torch.special.polygamma(1, p), torch.special.multigammaln(p + 2, 2),
                torch.special.log1p(p), torch.special.sinc(x),
                torch.special.gammaln(p), torch.special.round(x), torch.special.softmax(x, 1),
                torch.diff(x, n=2, dim=1), torch.diff(x, n=3, dim=0, append=y[:2]), torch.nanquantile(x, 0.25, dim=1),
                torch.bincount((p * 3).long().flatten(), weights=y.flatten(), minlength=4))


class Zeta(nn.Module):
    """Hurwitz zeta and the Bessel functions of the first kind (no lowering: see docs/pt2-sweep11.md)."""

    def forward(self, x):
        return torch.special.zeta(x.abs() + 1.5, x.abs() + 0.5), torch.special.bessel_j0(x), torch.special.bessel_j1(x)


class Grid3d(nn.Module):
    def forward(self, vol, theta2, theta3, img):
        g3 = F.affine_grid(theta3, [vol.shape[0], 2, 3, 4, 5], align_corners=False)
        g2 = F.affine_grid(theta2, [img.shape[0], 3, 6, 7], align_corners=True)
        return (F.grid_sample(vol, g3, mode="bilinear", padding_mode="zeros", align_corners=False),
                F.grid_sample(vol, g3, mode="nearest", padding_mode="border", align_corners=False),
                F.grid_sample(img, g2, mode="bilinear", padding_mode="reflection", align_corners=True),
                F.interpolate(vol, size=(3, 5, 7), mode="nearest-exact"), F.interpolate(img, scale_factor=0.6, mode="area"),
                F.interpolate(img, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True))


class Norms(nn.Module):
    """weight_norm / spectral_norm parametrizations in eval, and the older weight_norm hook."""

    def __init__(self):
        super().__init__()
        P = nn.utils.parametrizations
        self.a = P.weight_norm(nn.Linear(6, 8))
        self.b = P.spectral_norm(nn.Linear(8, 8))
        self.c = nn.utils.weight_norm(nn.Conv1d(8, 4, 3, padding=1), dim=0)
        self.d = P.orthogonal(nn.Linear(4, 4))

    def forward(self, x):
        h = self.b(self.a(x).relu())
        return self.d(self.c(h.transpose(1, 2)).transpose(1, 2))


def programs():
    T = _T()
    p = {
        # ---- op-level
        "pool3d_adaptive": fn(Pool3d, (torch.randn(2, 3, 4, 6, 6),), (torch.randn(3, 3, 4, 6, 6),), (B,)),
        "reductions_rare": fn(Reductions, (torch.randn(4, 6), torch.randn(4, 6)), (torch.randn(5, 6), torch.randn(5, 6)), (B, B)),
        "losses": fn(Losses, (torch.randn(4, 5), torch.randn(4, 5), torch.tensor([0, 2, 4, 1])),
                     (torch.randn(6, 5), torch.randn(6, 5), torch.tensor([1, 2, 3, 0, 4, 4])), (B, B, B)),
        "ctc_loss": fn(Ctc, (torch.randn(12, 2, 6), torch.randint(1, 6, (2, 4)), torch.tensor([12, 9]), torch.tensor([4, 3])),
                       (torch.randn(12, 3, 6), torch.randint(1, 6, (3, 4)), torch.tensor([12, 10, 7]), torch.tensor([4, 2, 3])),
                       ({1: AUTO}, B, B, B)),
        "embedding_bag_modes": fn(Bags, (torch.randint(0, 20, (12,)), torch.tensor([0, 3, 3, 7]), torch.rand(12)),
                                  (torch.randint(0, 20, (18,)), torch.tensor([0, 2, 9, 12]), torch.rand(18)),
                                  ({0: torch.export.Dim("n3", min=1, max=30) * 3}, None, {0: torch.export.Dim("n3", min=1, max=30) * 3})),
        "shuffles_pads": fn(Shuffles, (torch.randn(2, 8, 4, 6),), (torch.randn(3, 8, 4, 6),), (B,)),
        "special_rare": fn(SpecialRare, (torch.randn(4, 6), torch.randn(4, 6)), (torch.randn(5, 6), torch.randn(5, 6)), (B, B)),
        "zeta_bessel": fn(Zeta,
                           (torch.randn(4, 6),), (torch.randn(5, 6),), (B,)),
        "grid3d_affine": fn(Grid3d, (torch.randn(2, 2, 4, 6, 8), torch.randn(2, 2, 3) * 0.5, torch.randn(2, 3, 4) * 0.5,
                                     torch.randn(2, 3, 10, 12)),
                            (torch.randn(3, 2, 4, 6, 8), torch.randn(3, 2, 3) * 0.5, torch.randn(3, 3, 4) * 0.5, torch.randn(3, 3, 10, 12)),
                            (B, B, B, B)),
        "weight_spectral_norm": fn(Norms, (torch.randn(2, 5, 6),), (torch.randn(3, 7, 6),), (BD,)),
        # ---- state-space and hybrid decoders
        "mamba2": lm("Mamba2Config", "Mamba2ForCausalLM", num_heads=4, head_dim=16, state_size=8, n_groups=1, expand=2, chunk_size=4,
                     conv_kernel=4),
        "falcon_mamba": lmb("FalconMambaConfig", "FalconMambaForCausalLM", state_size=4, expand=2, conv_kernel=3, time_step_rank=4),
        "rwkv": lmb("RwkvConfig", "RwkvForCausalLM", attention_hidden_size=32, context_length=64),
        "jamba": lmb("JambaConfig", "JambaForCausalLM", num_hidden_layers=4, attn_layer_period=2, attn_layer_offset=1,
                    expert_layer_period=2, expert_layer_offset=1, num_experts=4, num_experts_per_tok=2, mamba_d_state=4,
                    mamba_d_conv=3, mamba_expand=2, mamba_dt_rank=4, use_mamba_kernels=False),
        "zamba2": lm("Zamba2Config", "Zamba2ForCausalLM", num_hidden_layers=3, layers_block_type=["mamba", "hybrid", "mamba"],
                     mamba_d_state=8, mamba_headdim=8, mamba_ngroups=1, n_mamba_heads=8, chunk_size=4, num_mem_blocks=1,
                     use_mem_rope=True, hybrid_layer_ids=[1], attention_head_dim=8, use_shared_attention_adapter=False),
        "bamba": lm("BambaConfig", "BambaForCausalLM", attn_layer_indices=[1], mamba_n_heads=4, mamba_d_head=16, mamba_n_groups=1,
                    mamba_d_state=8, mamba_chunk_size=4, mamba_expand=2),
        "recurrent_gemma": lmb("RecurrentGemmaConfig", "RecurrentGemmaForCausalLM", lru_width=32, attention_window_size=4,
                              block_types=["recurrent", "attention"], conv1d_width=3, head_dim=8),
        "lfm2": lm("Lfm2Config", "Lfm2ForCausalLM", layer_types=["conv", "full_attention"], conv_L_cache=3, block_ff_dim=64),
        # ---- decoders
        "olmo": lm("OlmoConfig", "OlmoForCausalLM", clip_qkv=4.0),
        "nemotron": lm("NemotronConfig", "NemotronForCausalLM", partial_rotary_factor=0.5, head_dim=8),
        "bitnet": lm("BitNetConfig", "BitNetForCausalLM"),
        "persimmon": lm("PersimmonConfig", "PersimmonForCausalLM", num_key_value_heads=4, qk_layernorm=True, partial_rotary_factor=0.5),
        "glm": lm("GlmConfig", "GlmForCausalLM", head_dim=8, partial_rotary_factor=0.5, pad_token_id=0),
        # ---- multimodal
        "qwen2_vl_vision": qwen_vision("qwen2_vl"),
        "qwen2_5_vl_vision": qwen_vision("qwen2_5_vl"),
        "llava": vlm("llava"),
        "paligemma": vlm("paligemma"),
        "gemma3_vlm": vlm("gemma3_vlm"),
        "idefics3": vlm("idefics3"),
        "blip2": vlm("blip2"),
        # ---- dense prediction / detection
        "depth_anything": vision(lambda: T.DepthAnythingForDepthEstimation(T.DepthAnythingConfig(
            backbone_config=dict(model_type="dinov2", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=4,
                                 num_attention_heads=4, out_indices=[1, 2, 3, 4], reshape_hidden_states=False),
            reassemble_hidden_size=32, neck_hidden_sizes=[8, 16, 32, 32], fusion_hidden_size=16, head_hidden_size=8,
            patch_size=8)), size=32),
        "glpn": vision(lambda: T.GLPNForDepthEstimation(T.GLPNConfig(hidden_sizes=[8, 16, 32, 32], num_attention_heads=[1, 2, 2, 4],
                                                                   depths=[1, 1, 1, 1], decoder_hidden_size=16)), batch_only=False),
        "mask2former": pick(cfgm("Mask2FormerForUniversalSegmentation", "Mask2FormerConfig",
                                 backbone_config=dict(model_type="swin", image_size=64, patch_size=4, embed_dim=16, depths=[1, 1, 1, 1],
                                                      num_heads=[1, 2, 2, 4], window_size=2,
                                                      out_features=["stage1", "stage2", "stage3", "stage4"]),
                                 feature_size=32, mask_feature_size=32, hidden_dim=32, encoder_feedforward_dim=32,
                                 encoder_layers=1, decoder_layers=2, num_attention_heads=2, num_queries=5, num_labels=3,
                                 dim_feedforward=32, common_stride=4),
                            ["pixel_values"], ["class_queries_logits", "masks_queries_logits"], img(2, 64), img(3, 64), (B,)),
        "sam": lambda: (SamDecoder(), (torch.randn(2, 3, 64, 64), torch.rand(2, 1, 2, 2) * 64, torch.ones(2, 1, 2, dtype=torch.long)),
                        (torch.randn(3, 3, 64, 64), torch.rand(3, 1, 2, 2) * 64, torch.ones(3, 1, 2, dtype=torch.long)), (B, B, B)),
        "conditional_detr": detr_like("ConditionalDetrForObjectDetection", "ConditionalDetrConfig", backbone_config=RESNET,
                                      backbone=None, **DETR),
        "deformable_detr": detr_like("DeformableDetrForObjectDetection", "DeformableDetrConfig", backbone_config=RESNET,
                                     backbone=None, num_feature_levels=3, encoder_n_points=2, decoder_n_points=2,
                                     **{**DETR, "decoder_layers": 2}),
        # (torch.export pins RT-DETR's batch: the second shape is other pixels at batch 2)
        "rt_detr": detr_like("RTDetrForObjectDetection", "RTDetrConfig", batch=2, reinit=True,
                             backbone_config=dict(model_type="rt_detr_resnet", embedding_size=8, hidden_sizes=[8, 16, 16, 32],
                                                  depths=[1, 1, 1, 1], layer_type="basic",
                                                  out_features=["stage2", "stage3", "stage4"]),
                             encoder_hidden_dim=16, encoder_in_channels=[16, 16, 32], encoder_ffn_dim=32, d_model=16,
                             decoder_in_channels=[16, 16, 16], decoder_ffn_dim=32, num_queries=6, decoder_layers=1,
                             decoder_attention_heads=2, encoder_attention_heads=2, decoder_n_points=2, num_labels=3,
                             anchor_image_size=[64, 64]),
        # ---- vision encoders
        "swiftformer": W.hfvision("SwiftFormerModel", "SwiftFormerConfig", size=64, depths=[1, 1, 1, 1],
                                  embed_dims=[8, 16, 24, 32]),
        "hiera": W.hfvision("HieraModel", "HieraConfig", size=64, embed_dim=16, image_size=[64, 64], patch_size=[7, 7],
                            patch_stride=[4, 4], patch_padding=[3, 3], depths=[1, 1, 1, 1], num_heads=[1, 2, 2, 4],
                            query_stride=[2, 2], masked_unit_size=[8, 8]),
        "perceiver_image": pick(cfgm("PerceiverForImageClassificationLearned", "PerceiverConfig", num_latents=8, d_latents=32,
                                     d_model=32, num_blocks=1, num_self_attends_per_block=2, num_self_attention_heads=4,
                                     num_cross_attention_heads=4, image_size=16, num_labels=3),
                                ["inputs"], ["logits"], img(2, 16), img(3, 16), (B,)),
        "layoutlmv3": lambda: (Pick(T.LayoutLMv3Model(T.LayoutLMv3Config(
            vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, input_size=32,
            patch_size=8, max_2d_position_embeddings=128, rel_pos_bins=8, max_rel_pos=16, rel_2d_pos_bins=8, max_rel_2d_pos=32,
            coordinate_size=6, shape_size=4)), ["input_ids", "bbox", "pixel_values"], ["last_hidden_state"]),
            (torch.randint(3, 64, (2, 7)), torch.sort(torch.randint(0, 100, (2, 7, 4)), -1).values, torch.randn(2, 3, 32, 32)),
            (torch.randint(3, 64, (3, 9)), torch.sort(torch.randint(0, 100, (3, 9, 4)), -1).values, torch.randn(3, 3, 32, 32)),
            ((BD, BD, B),)),
        # ---- text encoders
        "xlnet": lambda: (S.Logits(T.XLNetModel(T.XLNetConfig(vocab_size=64, d_model=32, n_layer=2, n_head=4, d_inner=64)),
                                   "last_hidden_state"), (torch.randint(1, 64, (2, 7)),), (torch.randint(1, 64, (3, 11)),), (BD,)),
        "reformer": lambda: (S.Logits(T.ReformerModel(T.ReformerConfig(
            vocab_size=64, hidden_size=32, num_attention_heads=2, attention_head_size=8, feed_forward_size=32,
            attn_layers=["local", "local"], axial_pos_embds=False, max_position_embeddings=64, local_attn_chunk_length=4,
            lsh_attn_chunk_length=4, num_buckets=4, num_hashes=1, is_decoder=False, hash_seed=0)), "last_hidden_state"),
            (torch.randint(1, 64, (2, 16)),), (torch.randint(1, 64, (3, 16)),), (B,)),
        "fnet": enc("FNetModel", "FNetConfig", lens=(8, 8), use_tpu_fourier_optimizations=False),
        "canine": enc("CanineModel", "CanineConfig", lens=(16, 16), downsampling_rate=4, num_hash_buckets=64, num_hash_functions=2,
                      local_transformer_stride=4),
        "longformer": enc("LongformerModel", "LongformerConfig", lens=(16, 16), attention_window=4, pad_token_id=0),
        # (its landmark attention cannot take a padding mask: ids only)
        "nystromformer": hfm("NystromformerModel", "NystromformerConfig", (torch.randint(1, 64, (2, 16)),), (torch.randint(1, 64, (3, 16)),),
                             (B,), wrap="last_hidden_state", vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, max_position_embeddings=64, num_landmarks=4, segment_means_seq_len=16,
                             conv_kernel_size=3),
        "squeezebert": enc("SqueezeBertModel", "SqueezeBertConfig", embedding_size=32, q_groups=2, k_groups=2, v_groups=2,
                           post_attention_groups=2, intermediate_groups=2, output_groups=2),
        "mobilebert": enc("MobileBertModel", "MobileBertConfig", embedding_size=16, intra_bottleneck_size=16,
                          true_hidden_size=16, num_feedforward_networks=2),
        # ---- audio
        "encodec": lambda: (Codec(T.EncodecModel(T.EncodecConfig(
            hidden_size=16, num_filters=4, num_residual_layers=1, upsampling_ratios=[4, 2], codebook_size=16, codebook_dim=16,
            num_lstm_layers=1, target_bandwidths=[1.5], sampling_rate=800, norm_type="weight_norm"))),
            (torch.randn(2, 1, 160),), (torch.randn(3, 1, 240),), ({0: AUTO, 2: torch.export.Dim("t8", min=2, max=100) * 8},)),
        "dac": lambda: (Codec(T.DacModel(T.DacConfig(encoder_hidden_size=4, downsampling_ratios=[2, 4], decoder_hidden_size=16,
                                                     n_codebooks=2, codebook_size=16, codebook_dim=4, hidden_size=32))),
                        (torch.randn(2, 1, 160),), (torch.randn(3, 1, 240),), ({0: AUTO, 2: torch.export.Dim("t8", min=2, max=100) * 8},)),
        "clap_audio": lambda: (S.Logits(T.ClapAudioModel(T.ClapAudioConfig(
            spec_size=32, patch_size=4, patch_stride=(4, 4), num_mel_bins=16, window_size=4, hidden_size=32, patch_embeds_hidden_size=16,
            depths=[1, 1], num_attention_heads=[2, 4], enable_fusion=False, projection_dim=16)), "pooler_output"),
            (torch.randn(2, 1, 32, 16),), (torch.randn(3, 1, 32, 16),), (B,)),
        "wav2vec2_bert": hfm("Wav2Vec2BertModel", "Wav2Vec2BertConfig", (torch.randn(2, 9, 16),), (torch.randn(3, 13, 16),), (BD,),
                             wrap="last_hidden_state", **W2V, feature_projection_input_dim=16, conv_depthwise_kernel_size=3,
                             position_embeddings_type="relative_key", left_max_position_embeddings=8,
                             right_max_position_embeddings=8, add_adapter=False),
        "speecht5_asr": speecht5,
        # ---- image-to-text / long seq2seq
        "pix2struct": pix2struct,
        "trocr": trocr,
        "pegasus_x": seq2seq("PegasusXForConditionalGeneration", "PegasusXConfig", lens=((16, 5), (16, 6)), dyn_seq=False,
                             **{**S2S, "block_size": 4, "num_global_tokens": 2, "stagger_local_blocks": True}),
        "bigbird_pegasus": seq2seq("BigBirdPegasusForConditionalGeneration", "BigBirdPegasusConfig", **S2S,
                                   attention_type="original_full"),
        "led": seq2seq("LEDForConditionalGeneration", "LEDConfig", lens=((16, 5), (16, 6)), dyn_seq=False,
                       **{**{k: v for k, v in S2S.items() if k != "max_position_embeddings"}, "attention_window": [4],
                          "max_encoder_position_embeddings": 64, "max_decoder_position_embeddings": 64}),
        # ---- time series
        "patchtst": lambda: (PatchTS(T.PatchTSTModel(T.PatchTSTConfig(
            num_input_channels=3, context_length=32, patch_length=8, patch_stride=8, d_model=16, num_attention_heads=2,
            num_hidden_layers=2, ffn_dim=32))), (torch.randn(2, 32, 3),), (torch.randn(3, 32, 3),), (B,)),
        "patchtsmixer": lambda: (PatchTS(T.PatchTSMixerModel(T.PatchTSMixerConfig(
            num_input_channels=3, context_length=32, patch_length=8, patch_stride=8, d_model=16, num_layers=2, mode="mix_channel",
            gated_attn=True, self_attn=True, self_attn_heads=2))), (torch.randn(2, 32, 3),), (torch.randn(3, 32, 3),), (B,)),
        # ---- more (added after the first run)
        "swin2sr": hfm("Swin2SRForImageSuperResolution", "Swin2SRConfig", img(2, 16), img(3, 16), (B,), wrap="reconstruction",
                       image_size=16, patch_size=1, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4, upscale=2,
                       upsampler="pixelshuffle"),
        "vitmae_noise": fn(MaeNoise, (torch.randn(2, 3, 32, 32), torch.rand(2, 16)), (torch.randn(3, 3, 32, 32), torch.rand(3, 16)), (B, B)),
        "dab_detr": detr_like("DabDetrForObjectDetection", "DabDetrConfig", backbone_config=RESNET, backbone=None,
                              use_timm_backbone=False, use_pretrained_backbone=False, hidden_size=32, encoder_layers=1,
                              decoder_layers=1, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                              decoder_ffn_dim=64, num_queries=6, num_labels=3),
        "table_transformer": detr_like("TableTransformerForObjectDetection", "TableTransformerConfig", backbone_config=RESNET,
                                       backbone=None, **DETR),
        "univnet": fn(UnivNet, (torch.randn(2, 10, 16), torch.randn(2, 10, 8)), (torch.randn(3, 14, 16), torch.randn(3, 14, 8)), (BD, BD)),
        "musicgen_decoder": lambda: (S.Logits(T.MusicgenForCausalLM(T.MusicgenDecoderConfig(
            vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, ffn_dim=64, num_codebooks=2,
            max_position_embeddings=64)), "logits"), (torch.randint(0, 64, (4, 7)),), (torch.randint(0, 64, (6, 9)),),
            ({0: 2 * torch.export.Dim("b", min=1, max=8), 1: AUTO},)),
        "git_caption": fn(GitCaption, (torch.randint(3, 64, (2, 5)), torch.randn(2, 3, 32, 32)),
                          (torch.randint(3, 64, (3, 7)), torch.randn(3, 3, 32, 32)), (BD, B)),
        "ssdlite_eval": fn(lambda: TvDetector("ssdlite320_mobilenet_v3_large"), (torch.rand(1, 3, 64, 64),), (torch.rand(1, 3, 64, 64),),
                           None),
        "fcos_eval": fn(lambda: TvDetector("fcos_resnet50_fpn"), (torch.rand(1, 3, 64, 64),), (torch.rand(1, 3, 64, 64),), None),
        "zamba": lmb("ZambaConfig", "ZambaForCausalLM", num_hidden_layers=6, attn_layer_period=2, attn_layer_offset=1,
                    mamba_d_state=4, mamba_d_conv=3, mamba_expand=2, mamba_dt_rank=4, n_mamba_heads=2, attention_head_dim=16,
                    use_mamba_kernels=False),
        "falcon_h1": lm("FalconH1Config", "FalconH1ForCausalLM", head_dim=8, mamba_d_ssm=32, mamba_n_heads=4, mamba_d_head=8,
                        mamba_n_groups=1, mamba_d_state=8, mamba_chunk_size=4, mamba_d_conv=4, mamba_expand=1),
        "granitemoe_hybrid": lm("GraniteMoeHybridConfig", "GraniteMoeHybridForCausalLM", layer_types=["mamba", "attention"],
                                num_local_experts=4, num_experts_per_tok=2, shared_intermediate_size=32, mamba_n_heads=4,
                                mamba_d_head=16, mamba_n_groups=1, mamba_d_state=8, mamba_chunk_size=4, mamba_expand=2),
        "dinov3_vit": hfm("DINOv3ViTModel", "DINOv3ViTConfig", img(2), img(3), (B,), wrap="last_hidden_state", image_size=32,
                          patch_size=8, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                          num_register_tokens=2),
        # ---- torchvision / diffusers
        "raft_small": fn(Raft, (torch.randn(2, 3, 128, 128), torch.randn(2, 3, 128, 128)), (torch.randn(3, 3, 128, 128), torch.randn(3, 3, 128, 128)),
                         (B, B)),
        "diffusers_unet2d_cond": fn(TinyUNet, (torch.randn(2, 4, 16, 16), torch.tensor([10, 500]), torch.randn(2, 5, 16)),
                                    (torch.randn(3, 4, 16, 16), torch.tensor([1, 20, 999]), torch.randn(3, 7, 16)), (B, B, BD)),
        "diffusers_vae": fn(TinyVAE, (torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),), (B,)),
    }
    return p


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
