#!/usr/bin/env python3
"""Sweep 12: real programs of kinds none of the earlier sweeps holds
(pt2_coverage.py, pt2_coverage_wider.py, pt2_sweep.py, pt2_sweep10.py,
pt2_sweep11.py): PT2E-quantized programs (torchao's prepare_pt2e /
convert_pt2e with the XNNPACK and X86 quantizers, static, dynamic and QAT,
and the embedding quantizer) and torchao's quantize_() (8da4w, int8
weight-only), torchvision eval programs not yet covered
(the R-CNN family and RetinaNet with their post-processing, Swin3D, MViT,
S3D, ViT-B/16, ConvNeXt, EfficientNetV2, Swin V2, RAFT large), diffusers
transformers (DiT, PixArt, SD3, Flux, ControlNet), speech synthesis and
codecs (VITS, FastSpeech2Conformer, its HiFi-GAN, SpeechT5's HiFi-GAN,
Mimi), time series (Informer, Autoformer, TimeSeriesTransformer),
keypoints / matching / detection heads and vision towers (SuperPoint,
ZoeDepth, VitPose, OWL-ViT, OWLv2, Pixtral, SigLIP2) and decoding variants
(a beam-search step reordering a DynamicCache, StaticCache steps of
sliding-window decoders, a left-padded batched prefill returning its cache,
a multi-token verification step).

Random weights, small configurations, no downloads. torchao (the PT2E
flow left torch.ao), diffusers and scipy are in the scratch venv
/work/venvs/pt2 only (`pip install torchao diffusers scipy`); none is a
build or test dependency.

Unlike the earlier sweeps, the reference is the EXPORTED PROGRAM: each
program is exported (strict=False), saved as exported (TRAINING) and after
run_decompositions() (core); each saved archive is loaded back and run at
the two shapes, and that is what ONNX Runtime is compared with (max
relative error, 1e-4; quantized programs 1e-2: see TOLERANCE). The exported
program is first compared with eager PyTorch, and the gap is reported in
its own column, so a torch-side divergence is not blamed on the converter.
A cell is `ok` only when every node also carries its module record.

    /work/venvs/pt2/bin/python benchmarks/pt2_sweep12.py [--only a,b] [--anchor] [--markdown FILE]
    /work/venvs/pt2/bin/python benchmarks/pt2_sweep12.py --work DIR --torch-only   # the torch side, kept
    /work/venvs/pt2/bin/python benchmarks/pt2_sweep12.py --work DIR --reuse        # convert what DIR holds

PT2_SWEEP_JSON=FILE also writes the rows as JSON. Results: docs/pt2-sweep12.md.
"""
import copy
import json
import os
import subprocess
import sys
import time
import traceback
import warnings

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  the quantized_decomposed ops, to load saved PT2E programs
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pt2_coverage as C  # noqa: E402
import pt2_sweep as S  # noqa: E402
import pt2_sweep11 as S11  # noqa: E402
from pt2_coverage import AUTO, _flat, _lm, fn  # noqa: E402
from pt2_sweep11 import _T, img  # noqa: E402

warnings.filterwarnings("ignore")
B = {0: AUTO}
BD = {0: AUTO, 1: AUTO}


# ------------------------------------------------------------------ PT2E quantization (torchao)
class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.c3 = nn.Conv2d(8, 16, 1)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.c1(x)))
        y = nn.functional.max_pool2d(y, 2)
        y = y + torch.relu(self.c2(y))
        y = nn.functional.hardtanh(self.c3(y), 0.0, 6.0)
        y = nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(y)


class SmallMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(12, 32), nn.Linear(32, 32), nn.Linear(32, 4)

    def forward(self, x):
        h = torch.relu(self.a(x))
        h = h + torch.relu(self.b(h))
        return self.c(h).softmax(-1)


class EmbedBag(nn.Module):
    def __init__(self):
        super().__init__()
        self.e, self.fc = nn.Embedding(40, 16), nn.Linear(16, 3)

    def forward(self, ids):
        return self.fc(self.e(ids).mean(1))


def _quantizer(kind):
    if kind.startswith("xnnpack"):
        from torchao.testing.pt2e._xnnpack_quantizer import XNNPACKQuantizer, get_symmetric_quantization_config
        return XNNPACKQuantizer().set_global(get_symmetric_quantization_config(
            is_per_channel=True, is_dynamic=kind.endswith("dynamic"), is_qat=kind.endswith("qat")))
    if kind == "embedding":
        from torchao.quantization.pt2e.quantizer.embedding_quantizer import EmbeddingQuantizer
        return EmbeddingQuantizer()
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer, get_default_x86_inductor_quantization_config)
    return X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config(
        is_dynamic=kind.endswith("dynamic"), is_qat=kind.endswith("qat")))


def pt2e(factory, kind, a, b, dyn, calib=3):
    """prepare_pt2e (or prepare_qat_pt2e) on the exported model, calibrated
    on random batches, convert_pt2e: the quantized GraphModule is the model
    (eager reference) and is exported again."""
    def build():
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e
        m = factory().eval()
        g = torch.export.export(m, a, dynamic_shapes=dyn, strict=False).module()
        g = (prepare_qat_pt2e if kind.endswith("qat") else prepare_pt2e)(g, _quantizer(kind))
        with torch.no_grad():
            for i in range(calib):
                g(*[x if not x.is_floating_point() else x * (1 + i) for x in a])
                g(*b)
        g = convert_pt2e(g)
        if kind.endswith("qat"):
            from torchao.quantization.pt2e import move_exported_model_to_eval
            move_exported_model_to_eval(g)
        return g, a, b, dyn
    return build


def torchao_quantize(factory, config, a, b, dyn):
    """torchao's quantize_() (tensor-subclass weights, not PT2E): the
    TRAINING program holds torchao's own affine ops, the core program their
    ATen decomposition."""
    def build():
        import torchao.quantization as Q
        from torchao.quantization.granularity import PerGroup
        m = factory().eval()
        cfg = {"8da4w": lambda: Q.Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                                                                        weight_granularity=PerGroup(32)),
               "int8wo": lambda: Q.Int8WeightOnlyConfig()}[config]()
        Q.quantize_(m, cfg)
        return m, a, b, dyn
    return build


class WideMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(64, 64), nn.Linear(64, 8)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class TvDetector(nn.Module):
    """A torchvision detector in eval mode, post-processing (box decoding, batched NMS) included."""

    def __init__(self, name, **kw):
        super().__init__()
        import torchvision as tv
        self.m = getattr(tv.models.detection, name)(weights=None, weights_backbone=None, num_classes=3, **kw)

    def forward(self, x):
        d = self.m(list(x))[0]
        return tuple(d[k] for k in ("boxes", "scores", "labels", "masks", "keypoints") if k in d)


def tv_model(name, *, sub="", shape=(3, 64, 64), batch=(2, 3), dyn=None, **kw):
    def build():
        import torchvision as tv
        mod = getattr(tv.models, sub) if sub else tv.models
        m = getattr(mod, name)(weights=None, **kw)
        return m, (torch.randn(batch[0], *shape),), (torch.randn(batch[1], *shape),), (dyn or B,)
    return build


def small_mvit():
    """torchvision's MViT with MViTv2's choices (residual pooling, decomposed
    relative position embeddings, projection after attention) at 4x32x32."""
    from torchvision.models.video.mvit import MSBlockConfig, MViT
    blocks = [MSBlockConfig(1, 16, 16, [3, 3, 3], [3, 3, 3], [1, 1, 1], [1, 2, 2]),
              MSBlockConfig(2, 16, 32, [3, 3, 3], [3, 3, 3], [1, 2, 2], [1, 1, 1]),
              MSBlockConfig(2, 32, 32, [3, 3, 3], [3, 3, 3], [1, 1, 1], [1, 1, 1])]
    return MViT(spatial_size=(32, 32), temporal_size=4, block_setting=blocks, residual_pool=True, residual_with_cls_embed=False,
                rel_pos_embed=True, proj_after_attn=True, stochastic_depth_prob=0.0, num_classes=5)


def small_s3d():
    """torchvision's S3D at 16x128x128 (its final 2x7x7 average pool needs
    224x224: the pool is 2x4x4 here, every other layer as shipped)."""
    import torchvision as tv
    m = tv.models.video.s3d(weights=None, num_classes=5)
    m.avgpool = nn.AvgPool3d(kernel_size=(2, 4, 4), stride=1)
    return m


class RaftLarge(S11.Raft):
    """Sweep 11's RAFT step (two flow updates) on raft_large."""

    def __init__(self):
        nn.Module.__init__(self)
        from torchvision.models.optical_flow import raft_large
        self.m = raft_large(weights=None)


# ------------------------------------------------------------------ diffusers
class DiT(nn.Module):
    """DiTTransformer2DModel: class-conditional patch transformer with adaLN-Zero."""

    def __init__(self):
        super().__init__()
        from diffusers import DiTTransformer2DModel
        self.m = DiTTransformer2DModel(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8,
                                       num_layers=2, sample_size=8, patch_size=2, num_embeds_ada_norm=10)

    def forward(self, x, t, cls):
        return self.m(x, timestep=t, class_labels=cls).sample


class PixArt(nn.Module):
    """PixArtTransformer2DModel: AdaLayerNormSingle, caption cross-attention."""

    def __init__(self):
        super().__init__()
        from diffusers import PixArtTransformer2DModel
        self.m = PixArtTransformer2DModel(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8,
                                          num_layers=2, sample_size=8, patch_size=2, cross_attention_dim=16,
                                          caption_channels=12, use_additional_conditions=False)

    def forward(self, x, t, ctx):
        return self.m(x, encoder_hidden_states=ctx, timestep=t).sample


class SD3(nn.Module):
    """SD3Transformer2DModel: MM-DiT joint attention over image and text tokens."""

    def __init__(self):
        super().__init__()
        from diffusers import SD3Transformer2DModel
        self.m = SD3Transformer2DModel(sample_size=8, patch_size=2, in_channels=4, num_layers=2, attention_head_dim=8,
                                       num_attention_heads=2, joint_attention_dim=16, caption_projection_dim=16,
                                       pooled_projection_dim=12, out_channels=4, pos_embed_max_size=16)

    def forward(self, x, ctx, pooled, t):
        return self.m(hidden_states=x, encoder_hidden_states=ctx, pooled_projections=pooled, timestep=t).sample


class Flux(nn.Module):
    """FluxTransformer2DModel: double- and single-stream blocks, 3-axis rope from the ids."""

    def __init__(self):
        super().__init__()
        from diffusers import FluxTransformer2DModel
        self.m = FluxTransformer2DModel(patch_size=1, in_channels=8, num_layers=1, num_single_layers=1, attention_head_dim=8,
                                        num_attention_heads=2, joint_attention_dim=16, pooled_projection_dim=12,
                                        guidance_embeds=False, axes_dims_rope=(2, 2, 4))

    def forward(self, x, ctx, pooled, t, img_ids, txt_ids):
        return self.m(hidden_states=x, encoder_hidden_states=ctx, pooled_projections=pooled, timestep=t, img_ids=img_ids,
                      txt_ids=txt_ids).sample


def flux_args(b, n, s):
    ids = torch.stack(torch.meshgrid(torch.zeros(1), torch.arange(4.0), torch.arange(n / 4), indexing="ij"), -1).reshape(-1, 3)
    return (torch.randn(b, n, 8), torch.randn(b, s, 16), torch.randn(b, 12), torch.rand(b), ids, torch.zeros(s, 3))


class ControlNet(nn.Module):
    """ControlNetModel: the down blocks' residuals and the mid block's, from a conditioning image."""

    def __init__(self):
        super().__init__()
        from diffusers import ControlNetModel
        self.m = ControlNetModel(in_channels=4, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), block_out_channels=(16, 32),
                                 layers_per_block=1, cross_attention_dim=16, attention_head_dim=4, norm_num_groups=8,
                                 conditioning_embedding_out_channels=(8, 16))

    def forward(self, x, t, ctx, cond):
        out = self.m(x, t, encoder_hidden_states=ctx, controlnet_cond=cond, return_dict=False)
        return (*out[0], out[1])


# ------------------------------------------------------------------ speech synthesis / codecs
class Vits(nn.Module):
    """VITS text-to-speech with its noise scales at 0 (the sampled noise
    times zero) and a fixed speaking rate: the waveform's length follows
    the predicted durations, a data-dependent size."""

    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.VitsModel(T.VitsConfig(vocab_size=20, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, ffn_dim=32,
                                          flow_size=8, spectrogram_bins=9, upsample_initial_channel=16, upsample_rates=[4, 4],
                                          upsample_kernel_sizes=[8, 8], resblock_kernel_sizes=[3], resblock_dilation_sizes=[[1, 3]],
                                          prior_encoder_num_flows=1, prior_encoder_num_wavenet_layers=1,
                                          posterior_encoder_num_wavenet_layers=1, duration_predictor_num_flows=1,
                                          duration_predictor_filter_channels=16, depth_separable_num_layers=1,
                                          noise_scale=0.0, noise_scale_duration=0.0, use_stochastic_duration_prediction=False))

    def forward(self, ids):
        return self.m(input_ids=ids).waveform


class FastSpeech2(nn.Module):
    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.FastSpeech2ConformerModel(T.FastSpeech2ConformerConfig(
            hidden_size=16, vocab_size=20, num_mel_bins=8, encoder_num_attention_heads=2, encoder_layers=1,
            encoder_linear_units=32, decoder_layers=1, decoder_num_attention_heads=2, decoder_linear_units=32,
            speech_decoder_postnet_layers=2, speech_decoder_postnet_units=16, speech_decoder_postnet_kernel=3,
            duration_predictor_layers=1, duration_predictor_channels=16, energy_predictor_layers=1, energy_predictor_channels=16,
            pitch_predictor_layers=1, pitch_predictor_channels=16, encoder_kernel_size=3, decoder_kernel_size=3,
            positionwise_conv_kernel_size=1))

    def forward(self, ids):
        return self.m(input_ids=ids, return_dict=True).spectrogram


class HifiGan(nn.Module):
    def __init__(self, kind):
        super().__init__()
        T = _T()
        if kind == "speecht5":
            self.m = T.SpeechT5HifiGan(T.SpeechT5HifiGanConfig(model_in_dim=8, upsample_initial_channel=16, upsample_rates=[4, 2],
                                                                upsample_kernel_sizes=[8, 4], resblock_kernel_sizes=[3, 5],
                                                                resblock_dilation_sizes=[[1, 3], [1, 3]]))
        else:
            self.m = T.FastSpeech2ConformerHifiGan(T.FastSpeech2ConformerHifiGanConfig(
                model_in_dim=8, upsample_initial_channel=16, upsample_rates=[4, 2], upsample_kernel_sizes=[8, 4],
                resblock_kernel_sizes=[3, 5], resblock_dilation_sizes=[[1, 3], [1, 3]]))

    def forward(self, mel):
        return self.m(mel)


class Mimi(nn.Module):
    """Mimi: SEANet encoder, a transformer, split residual vector quantisation, decode."""

    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.MimiModel(T.MimiConfig(hidden_size=16, num_filters=4, num_residual_layers=1, upsampling_ratios=[4, 2],
                                          codebook_size=16, codebook_dim=8, num_quantizers=4, num_semantic_quantizers=1,
                                          num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2, head_dim=8,
                                          intermediate_size=32, sliding_window=8, frame_rate=12.5, sampling_rate=200,
                                          max_position_embeddings=64, use_cache=False, upsample_groups=16,
                                          vector_quantization_hidden_dimension=8))

    def forward(self, wave):
        return self.m(input_values=wave, use_cache=False, return_dict=True).audio_values


# ------------------------------------------------------------------ time series
TS = dict(prediction_length=4, context_length=8, lags_sequence=[1, 2], num_time_features=2, input_size=1, d_model=16,
          encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
          decoder_ffn_dim=32, scaling="std")


class TimeSeries(nn.Module):
    """The encoder-decoder forward of a probabilistic forecaster with its
    future values known (the training-shaped call): last hidden state and
    the scale the model normalised by."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, past, past_time, past_mask, future, future_time):
        out = self.m(past_values=past, past_time_features=past_time, past_observed_mask=past_mask, future_values=future,
                     future_time_features=future_time, use_cache=False, return_dict=True)
        return out.last_hidden_state, out.loc, out.scale


def ts_args(b, hist=10):
    mask = torch.ones(b, hist)
    mask[0, :2] = 0
    return (torch.randn(b, hist), torch.randn(b, hist, 2), mask, torch.randn(b, 4), torch.randn(b, 4, 2))


def ts_model(model, cfg, **kw):
    def build():
        T = _T()
        m = getattr(T, model)(getattr(T, cfg)(**{**TS, **kw}))
        return TimeSeries(m), ts_args(2), ts_args(3), (B,) * 5
    return build


# ------------------------------------------------------------------ keypoints / matching / vision towers
class SuperPoint(nn.Module):
    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.SuperPointForKeypointDetection(T.SuperPointConfig(
            encoder_hidden_sizes=[8, 8, 16, 16], decoder_hidden_size=32, keypoint_decoder_dim=65, descriptor_decoder_dim=32,
            max_keypoints=16, nms_radius=2, border_removal_distance=2))

    def forward(self, x):
        out = self.m(x)
        return out.keypoints, out.scores, out.descriptors, out.mask


class OwlDetect(nn.Module):
    """OWL-ViT / OWLv2 open-vocabulary detection: text queries and image, box and class heads."""

    def __init__(self, v2):
        super().__init__()
        T = _T()
        cls, cfg = ("Owlv2ForObjectDetection", "Owlv2Config") if v2 else ("OwlViTForObjectDetection", "OwlViTConfig")
        self.m = getattr(T, cls)(getattr(T, cfg)(
            text_config=dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                             max_position_embeddings=16),
            vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, image_size=32,
                               patch_size=8), projection_dim=32))

    def forward(self, ids, mask, pixels):
        out = self.m(input_ids=ids, attention_mask=mask, pixel_values=pixels)
        return out.logits, out.pred_boxes


def owl_args(b, q=2):
    ids = torch.randint(1, 64, (b * q, 6))
    mask = torch.ones(b * q, 6, dtype=torch.long)
    mask[0, -2:] = 0
    return ids, mask, torch.randn(b, 3, 32, 32)


class ZoeDepth(nn.Module):
    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.ZoeDepthForDepthEstimation(T.ZoeDepthConfig(
            backbone_config=dict(model_type="dinov2", image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=4,
                                 num_attention_heads=4, out_indices=[1, 2, 3, 4], reshape_hidden_states=False),
            neck_hidden_sizes=[8, 16, 32, 32], fusion_hidden_size=16, reassemble_factors=[4, 2, 1, 0.5], hidden_size=32,
            patch_size=8, bottleneck_features=16, num_relative_features=8, num_attractors=[4, 2, 2, 2], bin_embedding_dim=16,
            n_bins=8, bin_configurations=[dict(n_bins=8, min_depth=1e-3, max_depth=10.0, name="nyu")]))

    def forward(self, x):
        return self.m(pixel_values=x).predicted_depth


class VitPose(nn.Module):
    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.VitPoseForPoseEstimation(T.VitPoseConfig(
            backbone_config=dict(model_type="vitpose_backbone", image_size=[32, 24], patch_size=[8, 8], hidden_size=32,
                                 num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2, out_indices=[2]),
            num_labels=5, use_simple_decoder=True))

    def forward(self, x):
        return self.m(pixel_values=x).heatmaps


class Pixtral(nn.Module):
    """Pixtral's vision tower: 2-D rope over the patch grid, one image per
    call at its own size (the size is a constant of the program)."""

    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.PixtralVisionModel(T.PixtralVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                                            num_attention_heads=4, image_size=64, patch_size=8, head_dim=8))

    def forward(self, x):
        return self.m(pixel_values=x, image_sizes=[(x.shape[2], x.shape[3])]).last_hidden_state


class PixtralTwo(Pixtral):
    """Two images of different sizes in one call (the second cropped to
    16x32 of the padded 32x48): their patches concatenated, attention
    block-diagonal per image."""

    def forward(self, x):
        return self.m(pixel_values=x, image_sizes=[(32, 48), (16, 32)]).last_hidden_state


class Siglip2(nn.Module):
    """SigLIP2's NaFlex vision tower: flattened patches with a padding mask
    and the patch grid (position embeddings resized to it)."""

    def __init__(self):
        super().__init__()
        T = _T()
        self.m = T.Siglip2VisionModel(T.Siglip2VisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                                            num_attention_heads=4, patch_size=4, num_patches=16, num_channels=3))

    def forward(self, patches, mask):
        grid = torch.tensor([[4, 4]]).expand(patches.shape[0], 2)
        return self.m(pixel_values=patches, pixel_attention_mask=mask, spatial_shapes=grid).pooler_output


def siglip2_args(b):
    mask = torch.ones(b, 16, dtype=torch.long)
    mask[0, -4:] = 0
    return torch.randn(b, 16, 48), mask


# ------------------------------------------------------------------ decoding variants
class BeamStep(nn.Module):
    """A beam-search step: the cache of every beam, the beams kept by the
    last step (DynamicCache.reorder_cache: index_select on each layer),
    then one token per beam; the logits and the reordered, extended cache."""

    def __init__(self, model, n=2):
        super().__init__()
        self.model, self.n = model, n

    def forward(self, ids, beam_idx, *kv):
        cache = S.dynamic_cache(self.model, kv, self.n)
        cache.reorder_cache(beam_idx)
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True)
        return S.with_cache(out.logits, out.past_key_values)


def beam_step(cfg, model, kvh=2, hd=8, **kw):
    def build():
        m = BeamStep(_lm(cfg, model, use_cache=True, **kw))
        beams, past = torch.export.Dim("beams", min=2, max=16), torch.export.Dim("past", min=2, max=60)

        def args(b, p):
            return (torch.randint(0, 64, (b, 1)), torch.randint(0, b, (b,))) + tuple(torch.randn(b, kvh, p, hd) for _ in range(4))
        return m, args(4, 6), args(6, 9), ({0: beams}, {0: beams}, tuple({0: beams, 2: past} for _ in range(4)))
    return build


class StaticStep(nn.Module):
    """transformers' ExecuTorch wrapper for a decoder-only LM: a StaticCache
    (sliding-window layers where the config has them) held as buffers the
    step writes; one token at a given cache position."""

    def __init__(self, model, max_len=16):
        super().__init__()
        from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM
        model.generation_config.cache_implementation = "static"
        model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": max_len}
        self.m = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=max_len)

    def forward(self, ids, pos):
        # (the outer wrapper's forward drops cache_position in transformers 5.24: the inner one takes it)
        return self.m.model(input_ids=ids, cache_position=pos)


def static_step(cfg, model, **kw):
    def build():
        m = StaticStep(_lm(cfg, model, use_cache=True, **kw))
        return m, (torch.randint(0, 64, (1, 1)), torch.tensor([3])), (torch.randint(0, 64, (1, 1)), torch.tensor([9])), None
    return build


class PrefillWithCache(nn.Module):
    """A left-padded batched prefill that returns the cache generate() goes on with:
    position ids from the mask, logits of the last position, every layer's keys and values."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids, mask):
        pos = (mask.cumsum(-1) - 1).clamp(min=0)
        out = self.m(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True)
        return S.with_cache(out.logits[:, -1], out.past_key_values)


def prefill_cache(cfg, model, **kw):
    def build():
        def a(b, s):
            mask = torch.ones(b, s, dtype=torch.long)
            mask[0, :3] = 0
            mask[1 % b, :1] = 0
            return torch.randint(0, 64, (b, s)), mask
        return PrefillWithCache(_lm(cfg, model, use_cache=True, **kw)), a(2, 7), a(3, 11), (BD, BD)
    return build


class VerifyStep(nn.Module):
    """Speculative decoding's verification: k draft tokens against a cache
    of dynamic length, the target's logits at every draft position."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, *kv):
        cache = S.dynamic_cache(self.model, kv, 2)
        return self.model(input_ids=ids, past_key_values=cache, use_cache=True).logits.argmax(-1)


def verify_step(cfg, model, hd=8, **kw):
    def build():
        m = VerifyStep(_lm(cfg, model, use_cache=True, **kw))
        past, k = torch.export.Dim("past", min=2, max=60), torch.export.Dim("k", min=2, max=8)

        def args(b, p, n):
            return (torch.randint(0, 64, (b, n)),) + tuple(torch.randn(b, 2, p, hd) for _ in range(4))
        return m, args(1, 6, 4), args(1, 9, 3), ({1: k}, tuple({2: past} for _ in range(4)))
    return build


# ------------------------------------------------------------------ the set
def programs():
    T = _T()
    cnn_a, cnn_b = (torch.randn(2, 3, 16, 16),), (torch.randn(3, 3, 16, 16),)
    mlp_a, mlp_b = (torch.randn(4, 12),), (torch.randn(6, 12),)
    return {
        # ---- PT2E quantization
        "pt2e_xnnpack_cnn": pt2e(SmallCNN, "xnnpack", cnn_a, cnn_b, (B,)),
        "pt2e_x86_cnn": pt2e(SmallCNN, "x86", cnn_a, cnn_b, (B,)),
        "pt2e_xnnpack_mlp": pt2e(SmallMLP, "xnnpack", mlp_a, mlp_b, (B,)),
        "pt2e_x86_mlp": pt2e(SmallMLP, "x86", mlp_a, mlp_b, (B,)),
        "pt2e_xnnpack_dynamic_mlp": pt2e(SmallMLP, "xnnpack_dynamic", mlp_a, mlp_b, (B,)),
        "pt2e_x86_dynamic_mlp": pt2e(SmallMLP, "x86_dynamic", mlp_a, mlp_b, (B,)),
        "pt2e_xnnpack_qat_cnn": pt2e(SmallCNN, "xnnpack_qat", cnn_a, cnn_b, (B,)),
        "pt2e_embedding": pt2e(EmbedBag, "embedding", (torch.randint(0, 40, (2, 5)),), (torch.randint(0, 40, (3, 7)),), (BD,)),
        "pt2e_xnnpack_resnet18": pt2e(lambda: __import__("torchvision").models.resnet18(num_classes=5), "xnnpack", img(2, 32), img(3, 32),
                                  (B,), calib=1),
        "torchao_8da4w_mlp": torchao_quantize(WideMLP, "8da4w", (torch.randn(4, 64),), (torch.randn(6, 64),), (B,)),
        "torchao_int8_weight_only_mlp": torchao_quantize(WideMLP, "int8wo", (torch.randn(4, 64),), (torch.randn(6, 64),), (B,)),
        # ---- torchvision
        "fasterrcnn_mobilenet_eval": fn(lambda: TvDetector("fasterrcnn_mobilenet_v3_large_320_fpn"), (torch.rand(1, 3, 64, 64),),
                                        (torch.rand(1, 3, 64, 64),), None),
        "retinanet_eval": fn(lambda: TvDetector("retinanet_resnet50_fpn", min_size=64, max_size=64), (torch.rand(1, 3, 64, 64),),
                             (torch.rand(1, 3, 64, 64),), None),
        "maskrcnn_eval": fn(lambda: TvDetector("maskrcnn_resnet50_fpn", min_size=64, max_size=64), (torch.rand(1, 3, 64, 64),),
                            (torch.rand(1, 3, 64, 64),), None),
        "keypointrcnn_eval": fn(lambda: TvDetector("keypointrcnn_resnet50_fpn", min_size=64, max_size=64, num_keypoints=5),
                                (torch.rand(1, 3, 64, 64),), (torch.rand(1, 3, 64, 64),), None),
        "swin3d_t": tv_model("swin3d_t", sub="video", shape=(3, 4, 32, 32), num_classes=5),
        "mvit_v2_small": fn(small_mvit, (torch.randn(2, 3, 4, 32, 32),), (torch.randn(3, 3, 4, 32, 32),), (B,)),
        "s3d": fn(small_s3d, (torch.randn(2, 3, 16, 128, 128),), (torch.randn(3, 3, 16, 128, 128),), (B,)),
        "vit_b_16_tv": tv_model("vit_b_16", shape=(3, 64, 64), image_size=64, num_classes=5),
        "convnext_tiny_tv": tv_model("convnext_tiny", num_classes=5),
        "efficientnet_v2_s_tv": tv_model("efficientnet_v2_s", num_classes=5),
        "swin_v2_t_tv": tv_model("swin_v2_t", num_classes=5),
        "raft_large": fn(RaftLarge, (torch.randn(2, 3, 128, 128), torch.randn(2, 3, 128, 128)),
                         (torch.randn(3, 3, 128, 128), torch.randn(3, 3, 128, 128)), (B, B)),
        # ---- diffusers
        "diffusers_dit": fn(DiT, (torch.randn(2, 4, 8, 8), torch.tensor([3, 500]), torch.tensor([1, 7])),
                            (torch.randn(3, 4, 8, 8), torch.tensor([1, 20, 999]), torch.tensor([0, 4, 9])), (B, B, B)),
        "diffusers_pixart": fn(PixArt, (torch.randn(2, 4, 8, 8), torch.tensor([3, 500]), torch.randn(2, 5, 12)),
                               (torch.randn(3, 4, 8, 8), torch.tensor([1, 20, 999]), torch.randn(3, 7, 12)), (B, B, BD)),
        "diffusers_sd3": fn(SD3, (torch.randn(2, 4, 8, 8), torch.randn(2, 5, 16), torch.randn(2, 12), torch.tensor([3, 500])),
                            (torch.randn(3, 4, 8, 8), torch.randn(3, 7, 16), torch.randn(3, 12), torch.tensor([1, 20, 999])),
                            (B, BD, B, B)),
        "diffusers_flux": fn(Flux, flux_args(2, 16, 5), flux_args(3, 16, 7), (B, BD, B, B, None, {0: AUTO})),
        "diffusers_controlnet": fn(ControlNet, (torch.randn(2, 4, 16, 16), torch.tensor([10, 500]), torch.randn(2, 5, 16),
                                                torch.randn(2, 3, 32, 32)),
                                   (torch.randn(3, 4, 16, 16), torch.tensor([1, 20, 999]), torch.randn(3, 7, 16),
                                    torch.randn(3, 3, 32, 32)), (B, B, BD, B)),
        # ---- speech synthesis / codecs
        "vits": fn(Vits, (torch.randint(1, 20, (1, 7)),), (torch.randint(1, 20, (1, 11)),), ({1: AUTO},)),
        "fastspeech2_conformer": fn(FastSpeech2, (torch.randint(1, 20, (1, 7)),), (torch.randint(1, 20, (1, 11)),), ({1: AUTO},)),
        "fastspeech2_hifigan": fn(lambda: HifiGan("fastspeech2"), (torch.randn(2, 10, 8),), (torch.randn(3, 14, 8),), (BD,)),
        "speecht5_hifigan": fn(lambda: HifiGan("speecht5"), (torch.randn(10, 8),), (torch.randn(14, 8),), (B,)),
        "mimi": fn(Mimi, (torch.randn(2, 1, 256),), (torch.randn(2, 1, 256),), None),
        # ---- time series
        "time_series_transformer": ts_model("TimeSeriesTransformerModel", "TimeSeriesTransformerConfig"),
        "informer": ts_model("InformerModel", "InformerConfig", attention_type="full", distil=True, encoder_layers=2),
        "autoformer": ts_model("AutoformerModel", "AutoformerConfig", moving_average=3, autocorrelation_factor=1, label_length=4),
        # ---- keypoints / depth / pose / detection heads / vision towers
        "superpoint": fn(SuperPoint, (torch.rand(1, 1, 32, 32),), (torch.rand(1, 1, 32, 32),), None),
        "zoedepth": fn(ZoeDepth, img(2), img(3), (B,)),
        "vitpose": fn(VitPose, (torch.randn(2, 3, 32, 24),), (torch.randn(3, 3, 32, 24),), (B,)),
        "owlvit_detect": fn(lambda: OwlDetect(False), owl_args(2), owl_args(3), ({0: 2 * torch.export.Dim("q", min=1, max=8)},
                                                                                  {0: 2 * torch.export.Dim("q", min=1, max=8)},
                                                                                  {0: torch.export.Dim("q", min=1, max=8)})),
        "owlv2_detect": fn(lambda: OwlDetect(True), owl_args(2), owl_args(3), ({0: 2 * torch.export.Dim("q", min=1, max=8)},
                                                                                {0: 2 * torch.export.Dim("q", min=1, max=8)},
                                                                                {0: torch.export.Dim("q", min=1, max=8)})),
        "pixtral_vision": fn(Pixtral, (torch.randn(1, 3, 32, 48),), (torch.randn(1, 3, 32, 48),), None),
        "pixtral_two_images": fn(PixtralTwo, (torch.randn(2, 3, 32, 48),), (torch.randn(2, 3, 32, 48),), None),
        "siglip2_naflex": fn(Siglip2, siglip2_args(2), siglip2_args(3), (B, B)),
        # ---- decoding variants
        "llama_beam_reorder": beam_step("LlamaConfig", "LlamaForCausalLM"),
        "qwen2_beam_reorder": beam_step("Qwen2Config", "Qwen2ForCausalLM"),
        "gemma2_static_sliding": static_step("Gemma2Config", "Gemma2ForCausalLM", head_dim=8, sliding_window=4,
                                             attn_logit_softcapping=50.0, final_logit_softcapping=30.0),
        "mistral_static_sliding": static_step("MistralConfig", "MistralForCausalLM", sliding_window=4),
        "qwen2_prefill_cache": prefill_cache("Qwen2Config", "Qwen2ForCausalLM"),
        "gemma2_prefill_cache": prefill_cache("Gemma2Config", "Gemma2ForCausalLM", head_dim=8, sliding_window=4),
        "llama_verify_k": verify_step("LlamaConfig", "LlamaForCausalLM"),
    }


TOLERANCE = {name: 1e-2 for name in ("pt2e_xnnpack_cnn", "pt2e_x86_cnn", "pt2e_xnnpack_mlp", "pt2e_x86_mlp", "pt2e_xnnpack_dynamic_mlp",
                                     "pt2e_x86_dynamic_mlp", "pt2e_xnnpack_qat_cnn", "pt2e_xnnpack_resnet18", "torchao_8da4w_mlp")}
# (QuantizeLinear divides by the scale where torch multiplies by its
# reciprocal: a value within an ulp of a rounding tie lands one step apart;
# one step of an 8-bit activation is ~1/255 of its range. pt2e_embedding
# quantizes weights only: no rounding at run time, 1e-4.)


# Exported with strict=True, as transformers' ExecuTorch recipe does: non-strict
# export lifts the StaticCache's buffers a second time as constants that
# alias them, and run_decompositions() then fails (docs/pt2-coverage.md,
# "State a program writes").
STRICT = {"gemma2_static_sliding", "mistral_static_sliding"}


# ------------------------------------------------------------------ running
def _where(e):
    where = traceback.extract_tb(e.__traceback__)[-1]
    return f"{type(e).__name__}: {' '.join(str(e).split())[:150]} ({os.path.basename(where.filename)}:{where.lineno})"


def _gap(ref, other):
    """Max relative difference of two flat output lists (as the ORT check measures it)."""
    worst = 0.0
    if len(ref) != len(other):
        return float("inf")
    for r, o in zip(ref, other):
        r, o = r.detach().double(), o.detach().double()
        if r.shape != o.shape:
            return float("inf")
        if r.numel():
            worst = max(worst, float((r - o).abs().max() / max(1.0, float(r.abs().max()))))
    return worst


def _program_outputs(pt2, xs):
    """The saved archive, loaded fresh (state a program writes starts from the saved values), run on xs."""
    with torch.no_grad():
        return _flat(torch.export.load(pt2).module()(*copy.deepcopy(xs)))


def prepare(name, build, work):
    """The torch side: export, save both levels, run each saved program at
    both shapes. Returns (and with REUSE keeps in <work>/<name>.prep.pt)
    the inputs, eager and program outputs, or torch's failure."""
    keep = os.path.join(work, f"{name}.prep.pt")
    if REUSE and os.path.exists(keep):
        return torch.load(keep, weights_only=False)
    torch.manual_seed(0)
    prep = {"levels": {}}
    try:
        model, a, b, dyn = build()
        if not isinstance(model, torch.fx.GraphModule):  # (a converted PT2E model refuses eval(): it is in eval)
            model = model.eval()
        with torch.no_grad():
            eager_a, eager_b = _flat(copy.deepcopy(model)(*a)), _flat(copy.deepcopy(model)(*b))
            ep = torch.export.export(model, a, dynamic_shapes=dyn, strict=name in STRICT)
    except Exception as e:  # torch's own failure (building, eager, export)
        prep["error"] = "torch: " + _where(e)
        torch.save(prep, keep)
        return prep
    prep.update(a=a, b=b)
    for level in ("training", "core"):
        try:
            prog = ep if level == "training" else ep.run_decompositions()
            pt2 = os.path.join(work, f"{name}.{level}.pt2")
            torch.export.save(prog, pt2)
            ref_a, ref_b = _program_outputs(pt2, a), _program_outputs(pt2, b)
            prep["levels"][level] = {"pt2": pt2, "ref_a": ref_a, "ref_b": ref_b,
                                     "gap": max(_gap(eager_a, ref_a), _gap(eager_b, ref_b))}
        except Exception as e:  # decompositions, save/load, or the program refusing a shape
            prep["levels"][level] = {"error": "torch: " + _where(e)}
    torch.save(prep, keep)
    return prep


def run(name, build, work, skip_anchor):
    prep = prepare(name, build, work)
    if "error" in prep:
        return {("mx", "training"): ("torch fails", prep["error"]), ("mx", "core"): ("torch fails", "")}
    a, b = prep["a"], prep["b"]
    tol = TOLERANCE.get(name, 1e-2 if any(t.dtype == torch.float16 for t in a) else 1e-4)
    row = {}
    for level in ("training", "core"):
        lv = prep["levels"][level]
        if "error" in lv:
            row[("mx", level)] = ("torch fails", lv["error"])
            continue
        pt2, ref_a, ref_b = lv["pt2"], lv["ref_a"], lv["ref_b"]
        row[("ep", level)] = ("gap", f"{lv['gap']:.1e}")
        if TORCH_ONLY:
            continue
        out = os.path.join(work, f"{name}.{level}.mx.onnx")
        t0 = time.perf_counter()
        p = subprocess.run([C._cli(), "export", pt2, "-o", out], capture_output=True, text=True)
        took = time.perf_counter() - t0
        if p.returncode != 0:
            lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip()] or ["?"]
            row[("mx", level)] = ("fails", " / ".join(ln.strip() for ln in lines[-2:])[:240])
        else:
            try:
                ok, how = C._ort_matches(out, a, b, ref_a, ref_b, tol)
                row[("mx", level)] = ("ok" if ok else "mismatch", f"{how}, {took:.2f} s")
                if ok:
                    missing, total = S._unrecorded(out)
                    if missing:
                        row[("mx", level)] = ("unrecorded", f"{missing} of {total} nodes without a module record; {how}")
            except Exception as e:  # our file fails in ONNX Runtime: ours, not torch's
                row[("mx", level)] = ("fails", f"onnxruntime: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
        if skip_anchor:
            continue
        out = os.path.join(work, f"{name}.{level}.dynamo.onnx")
        try:
            t0 = time.perf_counter()
            torch.onnx.export(torch.export.load(pt2), (), out, dynamo=True, verbose=False)
            took = time.perf_counter() - t0
            ok, how = C._ort_matches(out, a, b, ref_a, ref_b, tol)
            row[("anchor", level)] = ("ok" if ok else "mismatch", f"{how}, {took:.2f} s")
        except Exception as e:  # the anchor's own failure is a result
            row[("anchor", level)] = ("fails", f"{type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}")
    return row


REUSE = False  # --work DIR --reuse: the torch side of an earlier run with the same DIR
TORCH_ONLY = False  # --torch-only: export and run the programs, no conversion


def main():
    import argparse
    import tempfile
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--anchor", dest="skip_anchor", action="store_false", help="also torch.onnx.export(ep, dynamo=True)")
    ap.add_argument("--markdown", default="")
    ap.add_argument("--work", default="", help="keep the archives and the torch-side results here")
    ap.add_argument("--reuse", action="store_true", help="reuse the torch side kept in --work")
    ap.add_argument("--torch-only", action="store_true", help="export and run the programs only")
    args = ap.parse_args()
    global REUSE, TORCH_ONLY
    REUSE, TORCH_ONLY = args.reuse, args.torch_only
    only = set(filter(None, args.only.split(",")))
    rows, out = {}, os.environ.get("PT2_SWEEP_JSON")
    if args.work:
        os.makedirs(args.work, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or tmp
        for name, build in programs().items():
            if only and name not in only:
                continue
            rows[name] = run(name, build, work, args.skip_anchor)
            print(name, {f"{k[0]}/{k[1]}": v for k, v in rows[name].items()}, flush=True)
            if out:
                with open(out, "w") as f:
                    json.dump({n: {f"{k[0]} {k[1]}": list(v) for k, v in r.items()} for n, r in rows.items()}, f, indent=1)
    keys = [("mx", "training"), ("mx", "core")] + ([] if args.skip_anchor else [("anchor", "training"), ("anchor", "core")])
    lines = ["| program | exported vs eager | " + " | ".join(f"{'ours' if w == 'mx' else w} {lvl}" for w, lvl in keys) + " |",
             "|---" * (len(keys) + 2) + "|"]
    for name, row in rows.items():
        gaps = "/".join(row[("ep", lvl)][1] for lvl in ("training", "core") if ("ep", lvl) in row) or "-"
        cells = [f"{row[k][0]} ({row[k][1]})" if k in row and row[k][1] else (row[k][0] if k in row else "-") for k in keys]
        lines.append(f"| {name} | {gaps} | " + " | ".join(cells) + " |")
    total = {k: sum(1 for r in rows.values() if r.get(k, ("",))[0] == "ok") for k in keys}
    lines.append("| **converted** | | " + " | ".join(f"**{total[k]} / {len(rows)}**" for k in keys) + " |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
