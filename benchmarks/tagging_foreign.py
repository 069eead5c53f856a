"""Tagging ONNX files exported elsewhere: torch.onnx.export and ONNX Runtime.

    .venv/bin/python benchmarks/tagging_foreign.py \\
        --cli build/sdk/modelexport --plugin-dir build/plugins-out

Part (a): every torchvision classifier below, a bert-tiny BertModel (2 layers,
hidden 128, 2 heads, intermediate 512) and a small GPT2Model (2 layers, n_embd
64, use_cache=False), exported by Python torch.onnx.export (torch 1.13,
opset 17, defaults: eval, constant folding; dynamic batch/seq axes), tagged
with `modelexport tag --strategy S` for S in scope, usage, auto, without and
with `--hierarchy H.json` (rows S+H; H.json from `modelexport hierarchy
MODEL.pt` on the traced model, or the same document computed in Python by
`python_hierarchy` when the CLI has no torchscript plugin). Reported: node
count, share of nodes with a record (must be 100%), evidence mix, and scope
vs usage on nodes where both have their own evidence (scope / parameter).
"all nodes = auto+H" is the share of all nodes where usage alone names the
module torch's scopes name.

Part (b): bert, gpt2, resnet50 through ONNX Runtime (ORT_ENABLE_BASIC and
ORT_ENABLE_EXTENDED, optimized_model_filepath), tagged with usage (with and
without --hierarchy). Matching rule for "matches the unoptimized file": an
optimized node whose name exists in the unoptimized file is compared with
that node's module (n); otherwise, if it reads initializers that the
unoptimized file has, with the modules of the unoptimized readers of those
initializers, through torch's de-duplication Identity copies (i: match if
the tagged module is one of them); otherwise it is not compared (none).
Reference modules: the unoptimized file tagged by auto+H (torch's scopes,
"vs auto+H") and by the same usage variant ("vs same": what the optimizer
itself changed).

Both parts run twice: `fresh` weights (as constructed; torch.onnx then
de-duplicates equal-valued parameters, e.g. every LayerNorm weight/bias,
into Identity copies) and `perturbed` (no two parameters equal, as in a
trained checkpoint).

Measured 2026-11-23 (2 cores; about 13 minutes; exit status 0 = every export that the
exporter supports was tagged with 100% coverage, 1 otherwise):

    === weights: fresh

    (a) torch.onnx.export (torch 1.13, opset 17, defaults) -> modelexport tag
    model               nodes  run      tagged  evidence mix
    resnet18               65  scope    100.0%  scop:49 prop:16
                               scope+H  100.0%  scop:49 prop:16
                               usage    100.0%  para:1 prop:64
                               usage+H  100.0%  para:21 prop:44
                               auto     100.0%  scop:49 prop:16
                               auto+H   100.0%  scop:49 prop:16
    resnet50              169  scope    100.0%  scop:122 prop:47
                               scope+H  100.0%  scop:122 prop:47
                               usage    100.0%  para:1 prop:168
                               usage+H  100.0%  para:54 prop:115
                               auto     100.0%  scop:122 prop:47
                               auto+H   100.0%  scop:122 prop:47
    mobilenet_v2          209  scope    100.0%  scop:170 prop:39
                               scope+H  100.0%  scop:170 prop:39
                               usage    100.0%  para:1 prop:208
                               usage+H  100.0%  para:53 prop:156
                               auto     100.0%  scop:170 prop:39
                               auto+H   100.0%  scop:170 prop:39
    mobilenet_v3_small    159  scope    100.0%  scop:122 prop:37
                               scope+H  100.0%  scop:122 prop:37
                               usage    100.0%  para:25 prop:134
                               usage+H  100.0%  para:58 prop:101
                               auto     100.0%  scop:122 para:5 prop:32
                               auto+H   100.0%  scop:122 para:5 prop:32
    efficientnet_b0       298  scope    100.0%  scop:239 prop:59
                               scope+H  100.0%  scop:239 prop:59
                               usage    100.0%  para:51 prop:247
                               usage+H  100.0%  para:100 prop:198
                               auto     100.0%  scop:239 para:18 prop:41
                               auto+H   100.0%  scop:239 para:18 prop:41
    convnext_tiny         454  scope    100.0%  scop:346 prop:108
                               scope+H  100.0%  scop:346 prop:108
                               usage    100.0%  para:208 prop:246
                               usage+H  100.0%  para:244 prop:210
                               auto     100.0%  scop:346 para:108
                               auto+H   100.0%  scop:346 para:108
    densenet121           623  scope    100.0%  scop:378 prop:245
                               scope+H  100.0%  scop:378 prop:245
                               usage    100.0%  para:310 prop:313
                               usage+H  100.0%  para:369 prop:254
                               auto     100.0%  scop:378 para:186 prop:59
                               auto+H   100.0%  scop:378 para:186 prop:59
    squeezenet1_0          82  scope    100.0%  scop:65 prop:17
                               scope+H  100.0%  scop:65 prop:17
                               usage    100.0%  para:43 prop:39
                               usage+H  100.0%  para:43 prop:39
                               auto     100.0%  scop:65 para:17
                               auto+H   100.0%  scop:65 para:17
    shufflenet_v2_x1_0    937  scope    100.0%  scop:774 prop:163
                               scope+H  100.0%  scop:774 prop:163
                               usage    100.0%  para:1 prop:936
                               usage+H  100.0%  para:57 prop:880
                               auto     100.0%  scop:774 prop:163
                               auto+H   100.0%  scop:774 prop:163
    regnet_y_400mf        265  scope    100.0%  scop:217 prop:48
                               scope+H  100.0%  scop:217 prop:48
                               usage    100.0%  para:33 prop:232
                               usage+H  100.0%  para:86 prop:179
                               auto     100.0%  scop:217 prop:48
                               auto+H   100.0%  scop:217 prop:48
    mnasnet0_5            138  scope    100.0%  scop:99 prop:39
                               scope+H  100.0%  scop:99 prop:39
                               usage    100.0%  para:1 prop:137
                               usage+H  100.0%  para:53 prop:85
                               auto     100.0%  scop:99 prop:39
                               auto+H   100.0%  scop:99 prop:39
    vgg11                  33  scope    100.0%  scop:28 prop:5
                               scope+H  100.0%  scop:28 prop:5
                               usage    100.0%  para:16 prop:17
                               usage+H  100.0%  para:16 prop:17
                               auto     100.0%  scop:28 para:5
                               auto+H   100.0%  scop:28 para:5
    alexnet                20  scope    100.0%  scop:20
                               scope+H  100.0%  scop:20
                               usage    100.0%  para:8 prop:12
                               usage+H  100.0%  para:8 prop:12
                               auto     100.0%  scop:20
                               auto+H   100.0%  scop:20
    googlenet             179  scope    100.0%  scop:139 prop:40
                               scope+H  100.0%  scop:139 prop:40
                               usage    100.0%  para:1 prop:178
                               usage+H  100.0%  para:58 prop:121
                               auto     100.0%  scop:139 prop:40
                               auto+H   100.0%  scop:139 prop:40
    vit_b_16                -  torch.onnx.export failed: UnsupportedOperatorError: Exporting the operator 'aten::_native_multi_head_attention' to ONNX opset version 17 is not supported. Please feel free to request support or submit a pull requ
    bert                  227  scope    100.0%  scop:190 prop:37
                               scope+H  100.0%  scop:190 prop:37
                               usage    100.0%  para:41 prop:186
                               usage+H  100.0%  para:53 prop:174
                               auto     100.0%  scop:190 para:20 prop:17
                               auto+H   100.0%  scop:190 para:20 prop:17
    gpt2                  510  scope    100.0%  scop:451 prop:59
                               scope+H  100.0%  scop:451 prop:59
                               usage    100.0%  para:29 prop:481
                               usage+H  100.0%  para:29 prop:481
                               auto     100.0%  scop:451 para:14 prop:45
                               auto+H   100.0%  scop:451 para:14 prop:45

    scope vs usage where both have own evidence (scope evidence / parameter evidence)
    model               both agree disagree   +H both agree disagree   all nodes = auto+H: usage  usage+H
    resnet18               1     1        0        21    21        0                         3.1% 100.0%
    resnet50               1     1        0        54    54        0                         1.2% 100.0%
    mobilenet_v2           1     1        0        53    53        0                         8.1% 100.0%
    mobilenet_v3_small    20    20        0        53    53        0                        21.4% 100.0%
    efficientnet_b0       33    33        0        82    82        0                        22.5% 100.0%
    convnext_tiny        100   100        0       136   136        0                        49.8% 100.0%
    densenet121          124   124        0       183   183        0                        59.2% 100.0%
    squeezenet1_0         26    26        0        26    26        0                        63.4% 100.0%
    shufflenet_v2_x1_0     1     1        0        57    57        0                         0.2% 100.0%
    regnet_y_400mf        33    33        0        86    86        0                        18.5% 100.0%
    mnasnet0_5             1     1        0        53    53        0                        11.6% 100.0%
    vgg11                 11    11        0        11    11        0                        51.5% 100.0%
    alexnet                8     8        0         8     8        0                        45.0% 100.0%
    googlenet              1     1        0        58    58        0                         1.1% 100.0%
    bert                  21    21        0        33    33        0                        82.4%  99.6%
    gpt2                  15    15        0        15    15        0                        55.7% 100.0%

    (b) ONNX Runtime optimized (optimized_model_filepath) -> tag --strategy usage
    model    level     nodes  run      tagged         vs auto+H           vs same  n/i/none  evidence             contrib ops
    bert     basic        86  usage    100.0%       10/86 11.6%       14/86 16.3%  86/0/0    para:4 prop:82       -
    bert     basic        86  usage+H  100.0%       60/86 69.8%       60/86 69.8%  86/0/0    para:16 prop:70      -
    bert     extended     73  usage    100.0%       10/71 14.1%       13/71 18.3%  68/3/2    para:4 prop:69       BiasGelu:2,FusedGemm:1,FusedMatMul:2
    bert     extended     73  usage+H  100.0%       41/71 57.7%       41/71 57.7%  68/3/2    para:16 prop:57      BiasGelu:2,FusedGemm:1,FusedMatMul:2
    gpt2     basic       206  usage    100.0%      76/204 37.3%     164/204 80.4%  204/0/2   para:10 prop:196     -
    gpt2     basic       206  usage+H  100.0%     201/204 98.5%     201/204 98.5%  204/0/2   para:10 prop:196     -
    gpt2     extended    192  usage    100.0%      76/188 40.4%     148/188 78.7%  188/0/4   para:10 prop:182     FastGelu:2
    gpt2     extended    192  usage+H  100.0%     185/188 98.4%     185/188 98.4%  188/0/4   para:10 prop:182     FastGelu:2
    resnet50 basic       122  usage    100.0%        2/122 1.6%    122/122 100.0%  122/0/0   para:1 prop:121      -
    resnet50 basic       122  usage+H  100.0%     120/122 98.4%     120/122 98.4%  122/0/0   para:54 prop:68      -
    resnet50 extended     89  usage    100.0%         2/89 2.2%      89/89 100.0%  89/0/0    para:1 prop:88       FusedConv:33
    resnet50 extended     89  usage+H  100.0%       87/89 97.8%       87/89 97.8%  89/0/0    para:54 prop:35      FusedConv:33
    misses (usage+H vs auto+H; node: tagged | reference):
      bert basic: /embeddings/LayerNorm/LayerNormalization: embeddings | ['embeddings.LayerNorm']
      bert basic: /encoder/layer.0/attention/self/key/MatMul: encoder.layer.0.attention.self.query | ['encoder.layer.0.attention.self.key']
      bert basic: /encoder/layer.0/attention/self/key/Add: encoder.layer.0.attention.self | ['encoder.layer.0.attention.self.key']
      bert extended: /embeddings/LayerNorm/LayerNormalization: embeddings | ['embeddings.LayerNorm']
      bert extended: /encoder/layer.0/attention/self/key/MatMul: encoder.layer.0.attention.self.query | ['encoder.layer.0.attention.self.key']
      bert extended: /encoder/layer.0/attention/self/key/Add: encoder.layer.0.attention.self | ['encoder.layer.0.attention.self.key']
      gpt2 basic: /h.0/ln_1/LayerNormalization: <root> | ['h.0.ln_1']
      gpt2 basic: /h.0/ln_2/LayerNormalization: h.0.mlp.c_fc | ['h.0.ln_2']
      gpt2 basic: /h.1/ln_2/LayerNormalization: h.1.mlp.c_fc | ['h.1.ln_2']
      gpt2 extended: /h.0/ln_1/LayerNormalization: <root> | ['h.0.ln_1']
      gpt2 extended: /h.0/ln_2/LayerNormalization: h.0.mlp.c_fc | ['h.0.ln_2']
      gpt2 extended: /h.1/ln_2/LayerNormalization: h.1.mlp.c_fc | ['h.1.ln_2']
      resnet50 basic: /layer1/layer1.0/downsample/downsample.0/Conv: layer1.0.conv3 | ['layer1.0.downsample.0']
      resnet50 basic: /layer1/layer1.0/conv3/Conv: layer1.0.downsample.0 | ['layer1.0.conv3']
      resnet50 extended: /layer1/layer1.0/downsample/downsample.0/Conv: layer1.0.conv3 | ['layer1.0.downsample.0']
      resnet50 extended: /layer1/layer1.0/conv3/Conv: layer1.0.downsample.0 | ['layer1.0.conv3']

    === weights: perturbed

    (a) torch.onnx.export (torch 1.13, opset 17, defaults) -> modelexport tag
    model               nodes  run      tagged  evidence mix
    resnet18               49  scope    100.0%  scop:49
                               scope+H  100.0%  scop:49
                               usage    100.0%  para:1 prop:48
                               usage+H  100.0%  para:21 prop:28
                               auto     100.0%  scop:49
                               auto+H   100.0%  scop:49
    resnet50              122  scope    100.0%  scop:122
                               scope+H  100.0%  scop:122
                               usage    100.0%  para:1 prop:121
                               usage+H  100.0%  para:54 prop:68
                               auto     100.0%  scop:122
                               auto+H   100.0%  scop:122
    mobilenet_v2          170  scope    100.0%  scop:170
                               scope+H  100.0%  scop:170
                               usage    100.0%  para:1 prop:169
                               usage+H  100.0%  para:53 prop:117
                               auto     100.0%  scop:170
                               auto+H   100.0%  scop:170
    mobilenet_v3_small    122  scope    100.0%  scop:122
                               scope+H  100.0%  scop:122
                               usage    100.0%  para:20 prop:102
                               usage+H  100.0%  para:54 prop:68
                               auto     100.0%  scop:122
                               auto+H   100.0%  scop:122
    efficientnet_b0       239  scope    100.0%  scop:239
                               scope+H  100.0%  scop:239
                               usage    100.0%  para:33 prop:206
                               usage+H  100.0%  para:82 prop:157
                               auto     100.0%  scop:239
                               auto+H   100.0%  scop:239
    convnext_tiny         346  scope    100.0%  scop:346
                               scope+H  100.0%  scop:346
                               usage    100.0%  para:100 prop:246
                               usage+H  100.0%  para:136 prop:210
                               auto     100.0%  scop:346
                               auto+H   100.0%  scop:346
    densenet121           440  scope    100.0%  scop:378 prop:62
                               scope+H  100.0%  scop:378 prop:62
                               usage    100.0%  para:186 prop:254
                               usage+H  100.0%  para:245 prop:195
                               auto     100.0%  scop:378 para:62
                               auto+H   100.0%  scop:378 para:62
    squeezenet1_0          65  scope    100.0%  scop:65
                               scope+H  100.0%  scop:65
                               usage    100.0%  para:26 prop:39
                               usage+H  100.0%  para:26 prop:39
                               auto     100.0%  scop:65
                               auto+H   100.0%  scop:65
    shufflenet_v2_x1_0    886  scope    100.0%  scop:774 prop:112
                               scope+H  100.0%  scop:774 prop:112
                               usage    100.0%  para:1 prop:885
                               usage+H  100.0%  para:57 prop:829
                               auto     100.0%  scop:774 prop:112
                               auto+H   100.0%  scop:774 prop:112
    regnet_y_400mf        217  scope    100.0%  scop:217
                               scope+H  100.0%  scop:217
                               usage    100.0%  para:33 prop:184
                               usage+H  100.0%  para:86 prop:131
                               auto     100.0%  scop:217
                               auto+H   100.0%  scop:217
    mnasnet0_5             99  scope    100.0%  scop:99
                               scope+H  100.0%  scop:99
                               usage    100.0%  para:1 prop:98
                               usage+H  100.0%  para:53 prop:46
                               auto     100.0%  scop:99
                               auto+H   100.0%  scop:99
    vgg11                  28  scope    100.0%  scop:28
                               scope+H  100.0%  scop:28
                               usage    100.0%  para:11 prop:17
                               usage+H  100.0%  para:11 prop:17
                               auto     100.0%  scop:28
                               auto+H   100.0%  scop:28
    alexnet                20  scope    100.0%  scop:20
                               scope+H  100.0%  scop:20
                               usage    100.0%  para:8 prop:12
                               usage+H  100.0%  para:8 prop:12
                               auto     100.0%  scop:20
                               auto+H   100.0%  scop:20
    googlenet             139  scope    100.0%  scop:139
                               scope+H  100.0%  scop:139
                               usage    100.0%  para:1 prop:138
                               usage+H  100.0%  para:58 prop:81
                               auto     100.0%  scop:139
                               auto+H   100.0%  scop:139
    vit_b_16                -  torch.onnx.export failed: UnsupportedOperatorError: Exporting the operator 'aten::_native_multi_head_attention' to ONNX opset version 17 is not supported. Please feel free to request support or submit a pull requ
    bert                  207  scope    100.0%  scop:190 prop:17
                               scope+H  100.0%  scop:190 prop:17
                               usage    100.0%  para:21 prop:186
                               usage+H  100.0%  para:33 prop:174
                               auto     100.0%  scop:190 prop:17
                               auto+H   100.0%  scop:190 prop:17
    gpt2                  496  scope    100.0%  scop:451 prop:45
                               scope+H  100.0%  scop:451 prop:45
                               usage    100.0%  para:15 prop:481
                               usage+H  100.0%  para:15 prop:481
                               auto     100.0%  scop:451 prop:45
                               auto+H   100.0%  scop:451 prop:45

    scope vs usage where both have own evidence (scope evidence / parameter evidence)
    model               both agree disagree   +H both agree disagree   all nodes = auto+H: usage  usage+H
    resnet18               1     1        0        21    21        0                         4.1% 100.0%
    resnet50               1     1        0        54    54        0                         1.6% 100.0%
    mobilenet_v2           1     1        0        53    53        0                         1.8% 100.0%
    mobilenet_v3_small    20    20        0        54    54        0                        23.8% 100.0%
    efficientnet_b0       33    33        0        82    82        0                        20.5% 100.0%
    convnext_tiny        100   100        0       136   136        0                        34.1% 100.0%
    densenet121          124   124        0       183   183        0                        42.5% 100.0%
    squeezenet1_0         26    26        0        26    26        0                        53.8% 100.0%
    shufflenet_v2_x1_0     1     1        0        57    57        0                         0.2% 100.0%
    regnet_y_400mf        33    33        0        86    86        0                        22.6% 100.0%
    mnasnet0_5             1     1        0        53    53        0                         2.0% 100.0%
    vgg11                 11    11        0        11    11        0                        42.9% 100.0%
    alexnet                8     8        0         8     8        0                        45.0% 100.0%
    googlenet              1     1        0        58    58        0                         1.4% 100.0%
    bert                  21    21        0        33    33        0                        80.7%  99.5%
    gpt2                  15    15        0        15    15        0                        54.4% 100.0%

    (b) ONNX Runtime optimized (optimized_model_filepath) -> tag --strategy usage
    model    level     nodes  run      tagged         vs auto+H           vs same  n/i/none  evidence             contrib ops
    bert     basic        86  usage    100.0%       57/86 66.3%      86/86 100.0%  86/0/0    para:21 prop:65      -
    bert     basic        86  usage+H  100.0%      86/86 100.0%      86/86 100.0%  86/0/0    para:33 prop:53      -
    bert     extended     73  usage    100.0%       53/71 74.6%      71/71 100.0%  68/3/2    para:21 prop:52      BiasGelu:2,FusedGemm:1,FusedMatMul:2
    bert     extended     73  usage+H  100.0%       67/71 94.4%       67/71 94.4%  68/3/2    para:33 prop:40      BiasGelu:2,FusedGemm:1,FusedMatMul:2
    gpt2     basic       206  usage    100.0%      92/204 45.1%     200/204 98.0%  204/0/2   para:15 prop:191     -
    gpt2     basic       206  usage+H  100.0%    204/204 100.0%    204/204 100.0%  204/0/2   para:15 prop:191     -
    gpt2     extended    192  usage    100.0%      92/188 48.9%     184/188 97.9%  188/0/4   para:15 prop:177     FastGelu:2
    gpt2     extended    192  usage+H  100.0%    188/188 100.0%    188/188 100.0%  188/0/4   para:15 prop:177     FastGelu:2
    resnet50 basic       122  usage    100.0%        2/122 1.6%    122/122 100.0%  122/0/0   para:1 prop:121      -
    resnet50 basic       122  usage+H  100.0%    122/122 100.0%    122/122 100.0%  122/0/0   para:54 prop:68      -
    resnet50 extended     89  usage    100.0%         2/89 2.2%      89/89 100.0%  89/0/0    para:1 prop:88       FusedConv:33
    resnet50 extended     89  usage+H  100.0%       87/89 97.8%       87/89 97.8%  89/0/0    para:54 prop:35      FusedConv:33
    misses (usage+H vs auto+H; node: tagged | reference):
      bert extended: /encoder/layer.0/attention/self/Add: <root> | ['encoder.layer.0.attention.self']
      bert extended: /encoder/layer.0/attention/self/Softmax: <root> | ['encoder.layer.0.attention.self']
      bert extended: /encoder/layer.1/attention/self/Add: <root> | ['encoder.layer.1.attention.self']
      resnet50 extended: /layer1/layer1.0/downsample/downsample.0/Conv: layer1.0.conv3 | ['layer1.0.downsample.0']
      resnet50 extended: /layer1/layer1.0/conv3/Conv: layer1.0.downsample.0 | ['layer1.0.conv3']
"""
import argparse
import collections
import json
import pathlib
import shutil
import subprocess
import sys
import time

from mx_cli import Cli, sidecar, work_dir  # benchmarks/mx_cli.py

REPO = pathlib.Path(__file__).resolve().parent.parent

VISION = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
          "convnext_tiny", "densenet121", "squeezenet1_0", "shufflenet_v2_x1_0",
          "regnet_y_400mf", "mnasnet0_5", "vgg11", "alexnet", "googlenet", "vit_b_16"]
MODELS = VISION + ["bert", "gpt2"]
ORT_MODELS = ["bert", "gpt2", "resnet50"]
STRATEGIES = ["scope", "usage", "auto"]


# ------------------------------------------------------------------ models (child process)
def build_model(name):
    """(model, example inputs, input names, dynamic axes) with random weights."""
    import torch
    torch.manual_seed(0)
    if name == "bert":
        from transformers import BertConfig, BertModel
        cfg = BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=512,
                         max_position_embeddings=128, torchscript=True)
        ids = torch.randint(0, 1000, (2, 16))
        mask = torch.ones(2, 16, dtype=torch.int64)
        types = torch.zeros(2, 16, dtype=torch.int64)
        names = ["input_ids", "attention_mask", "token_type_ids"]
        return BertModel(cfg), (ids, mask, types), names, \
            {n: {0: "batch", 1: "seq"} for n in names}
    if name == "gpt2":
        from transformers import GPT2Config, GPT2Model
        cfg = GPT2Config(vocab_size=1000, n_positions=128, n_embd=64, n_layer=2, n_head=2,
                         use_cache=False, torchscript=True)
        return GPT2Model(cfg), (torch.randint(0, 1000, (2, 12)),), ["input_ids"], \
            {"input_ids": {0: "batch", 1: "seq"}}
    import torchvision
    kwargs = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}
    model = getattr(torchvision.models, name)(**kwargs)
    return model, (torch.randn(1, 3, 224, 224),), ["x"], {"x": {0: "batch"}}


def perturb(model):
    """Trained-like weights: no two parameters equal. Fresh weights make
    torch.onnx de-duplicate every LayerNorm weight/bias and zero bias into one
    initializer (Identity copies), which real checkpoints rarely trigger."""
    import torch
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1 + 0.05 * torch.randn(p.shape, generator=g))
            p.add_(0.01 * torch.randn(p.shape, generator=g))


def export_one(name, out_dir, variant):
    """torch.onnx.export (defaults, opset 17) + torch.jit.trace of the same model."""
    import torch
    out_dir.mkdir(parents=True, exist_ok=True)
    model, inputs, names, axes = build_model(name)
    model.eval()
    if variant == "perturbed":
        perturb(model)
    status = {"model": name}
    with torch.no_grad():
        try:
            torch.onnx.export(model, inputs, str(out_dir / "torch.onnx"), opset_version=17,
                              input_names=names, dynamic_axes=axes)
            status["export"] = "ok"
        except Exception as error:  # the exporter's failure is a result
            status["export"] = f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"
        traced = torch.jit.trace(model, inputs, strict=False)
        traced.save(str(out_dir / "model.pt"))
    (out_dir / "export.json").write_text(json.dumps(status))


def ort_optimize(src, dst, level):
    """ONNX Runtime's graph optimizations written out (optimized_model_filepath)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = {"basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                                   "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                                   }[level]
    so.optimized_model_filepath = str(dst)
    ort.InferenceSession(str(src), so, providers=["CPUExecutionProvider"])


def python_hierarchy(pt, out):
    """The document `modelexport hierarchy MODEL.pt` writes (the torchscript
    frontend's module_tree: path, class, qualified_class, parent, children,
    tag, parameters, own_parameters, executed=false), computed in Python from
    the same traced file. Used only when the CLI has no torchscript plugin."""
    import torch
    root = torch.jit.load(str(pt))

    def count(m, recurse):
        seen, n = set(), 0
        for _, p in m.named_parameters(recurse=recurse):
            if id(p) not in seen:
                seen.add(id(p))
                n += p.numel()
        return n

    def qual(m):
        parts = m._c._type().qualified_name().split(".")
        return ".".join(c for c in parts
                        if c != "__torch__" and not c.startswith("___torch_mangle_"))

    containers = {"ModuleList", "ModuleDict", "Sequential", "ParameterList", "ParameterDict"}
    mods = dict(root.named_modules())
    modules = []
    for path, m in mods.items():
        q = qual(m)
        tag = ""
        chain = [""] + [".".join(path.split(".")[:k + 1])
                        for k in range(len(path.split(".")))] if path else [""]
        for c in chain:
            cm = mods.get(c)
            if cm is None:
                continue
            cls = qual(cm).split(".")[-1]
            if c and cls in containers:
                continue
            last = c.split(".")[-1]
            tag += "/" + cls + ("." + last if c and last.isdigit() else "")
        modules.append({"path": path, "class": q.split(".")[-1], "qualified_class": q,
                        "parent": None if not path else path.rpartition(".")[0],
                        "children": [p for p in mods if p and p.rpartition(".")[0] == path
                                     and p != path],
                        "tag": tag, "parameters": count(m, True),
                        "own_parameters": count(m, False), "executed": False,
                        "execution_order": None})
    doc = {"schema": "modelexport.hierarchy/1",
           "producer": {"source": "benchmarks/tagging_foreign.py (python_hierarchy)"},
           "modules": modules, "nodes": []}
    pathlib.Path(out).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "--child-hierarchy":
    python_hierarchy(sys.argv[2], sys.argv[3])
    sys.exit(0)


def python(*args):
    """This script in a fresh interpreter (the exporter's memory is returned)."""
    proc = subprocess.run([sys.executable, __file__, *map(str, args)], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{args[0]} failed: {proc.stderr.strip()[-400:]}")


def tag(cli, src, out, strategy, tree):
    """Tag `src`; the sidecar's node records, checked for 100% coverage."""
    extra = ["--hierarchy", tree] if tree else []
    cli.run("tag", src, "-o", out, "--strategy", strategy, "--tag-storage", "none", *extra)
    nodes = sidecar(out)["nodes"]
    untagged = [n["name"] for n in nodes if not n.get("evidence") or "module" not in n]
    return nodes, untagged


# ------------------------------------------------------------------ part (a)
OWN = {"scope": "scope", "usage": "parameter"}


def agreement(scope_nodes, usage_nodes):
    """Nodes with scope evidence in the `scope` run and parameter evidence in
    the `usage` run: how many name the same module."""
    agree, disagree = 0, []
    for s, u in zip(scope_nodes, usage_nodes):
        if s["evidence"] == "scope" and u["evidence"] == "parameter":
            if s["module"] == u["module"]:
                agree += 1
            else:
                disagree.append((s["name"], s["module"], u["module"]))
    return agree, disagree


def run_model(name, cli, work, variant):
    d = work / variant / name
    d.mkdir(parents=True, exist_ok=True)
    python("--child-export", name, d, variant)
    status = json.loads((d / "export.json").read_text())
    result = {"export": status["export"], "runs": {}}
    if status["export"] != "ok":
        return result
    import onnx
    graph = onnx.load(str(d / "torch.onnx"), load_external_data=False).graph
    result["nodes"] = len(graph.node)
    result["initializers"] = len(graph.initializer)
    tree = d / "hierarchy.json"
    try:
        cli.run("hierarchy", d / "model.pt", "-o", tree)
        result["hierarchy_source"] = "modelexport hierarchy"
    except RuntimeError as error:  # e.g. a build without the torchscript plugin
        try:
            python("--child-hierarchy", d / "model.pt", tree)
            result["hierarchy_source"] = "python_hierarchy"
            result["hierarchy_note"] = str(error)
        except RuntimeError as error2:
            result["hierarchy_error"] = f"{error}; {error2}"
            tree = None
    nodes = {}
    for strategy in STRATEGIES:
        for label, h in ((strategy, None), (strategy + "+H", tree)):
            if label.endswith("+H") and tree is None:
                continue
            try:
                recs, untagged = tag(cli, d / "torch.onnx", d / f"tagged-{label}.onnx",
                                     strategy, h)
            except RuntimeError as error:
                result["runs"][label] = {"error": str(error)}
                continue
            nodes[label] = recs
            result["runs"][label] = {
                "tagged": len(recs) - len(untagged), "untagged": untagged[:5],
                "evidence": dict(collections.Counter(n["evidence"] for n in recs)),
                "at_root": sum(1 for n in recs if n["module"] == "")}
    if "auto+H" in nodes:  # all nodes: how far usage alone gets from torch's scopes
        result["same_as_auto+H"] = {
            label: sum(x["module"] == y["module"] for x, y in zip(nodes[label], nodes["auto+H"]))
            for label in ("usage", "usage+H") if label in nodes}
    for suffix in ("", "+H"):
        if "scope" + suffix in nodes and "usage" + suffix in nodes:
            agree, disagree = agreement(nodes["scope" + suffix], nodes["usage" + suffix])
            result["agreement" + suffix] = {"agree": agree, "disagree": len(disagree),
                                            "examples": disagree[:6]}
    return result


# ------------------------------------------------------------------ part (b)
def consumers_by_initializer(graph):
    """initializer -> indices of nodes reading it, through Identity copies
    (torch's de-duplicated parameters are Identity(shared) -> param name)."""
    inits = {i.name for i in graph.initializer}
    alias = {}
    for n in graph.node:
        if n.op_type == "Identity" and n.input and n.input[0] in inits:
            alias[n.output[0]] = n.input[0]
    readers = collections.defaultdict(set)
    for k, n in enumerate(graph.node):
        if n.op_type == "Identity" and n.input and n.input[0] in inits:
            continue
        for v in n.input:
            if v in inits:
                readers[v].add(k)
            elif v in alias:
                readers[v].add(k)            # the parameter's own name
                readers[alias[v]].add(k)
    return readers


def reference_modules(opt_graph, ref_graph, ref_nodes):
    """Per node of the optimized graph: ("name", {module}) when an original
    node has its name, else ("init", {modules}) from the original readers of
    the initializers it reads, else (None, set())."""
    by_name = {n.name: k for k, n in enumerate(ref_graph.node) if n.name}
    readers = consumers_by_initializer(ref_graph)
    refs = []
    for n in opt_graph.node:
        if n.name in by_name:
            refs.append(("name", {ref_nodes[by_name[n.name]]["module"]}))
            continue
        mods = set()
        for v in n.input:
            for k in readers.get(v, ()):
                mods.add(ref_nodes[k]["module"])
        refs.append(("init", mods) if mods else (None, set()))
    return refs


def run_ort(name, cli, work, variant, levels):
    import onnx
    d = work / variant / name
    ref_graph = onnx.load(str(d / "torch.onnx"), load_external_data=False).graph
    refs_by = {}
    for label in ("auto+H", "usage+H", "usage"):
        out = d / f"tagged-{label}.onnx"
        if pathlib.Path(str(out)[:-5] + ".hierarchy.json").exists():
            refs_by[label] = sidecar(out)["nodes"]
    tree = d / "hierarchy.json"
    results = {}
    for level in levels:
        opt = d / f"ort-{level}.onnx"
        try:
            python("--child-ort", d / "torch.onnx", opt, level)
        except RuntimeError as error:
            results[level] = {"error": str(error)}
            continue
        graph = onnx.load(str(opt), load_external_data=False).graph
        domains = sorted({n.domain for n in graph.node if n.domain not in ("", "ai.onnx")})
        row = {"nodes": len(graph.node), "domains": domains,
               "ops": dict(collections.Counter(n.op_type for n in graph.node
                                               if n.domain not in ("", "ai.onnx"))),
               "runs": {}}
        for label, h in (("usage", None), ("usage+H", tree if tree.exists() else None)):
            if label.endswith("+H") and h is None:
                continue
            try:
                recs, untagged = tag(cli, opt, d / f"ort-{level}-tagged-{label}.onnx",
                                     "usage", h)
            except RuntimeError as error:
                row["runs"][label] = {"error": str(error)}
                continue
            run = {"tagged": len(recs) - len(untagged), "untagged": untagged[:5],
                   "at_root": sum(1 for n in recs if n["module"] == ""),
                   "evidence": dict(collections.Counter(n["evidence"] for n in recs))}
            # reference: the unoptimized file tagged by auto+H (scope names,
            # i.e. torch's own scopes) and by the same usage variant.
            for ref_label in ("auto+H", label):
                if ref_label not in refs_by:
                    continue
                refs = reference_modules(graph, ref_graph, refs_by[ref_label])
                stat = collections.Counter()
                misses = []
                for rec, (how, mods) in zip(recs, refs):
                    if how is None:
                        stat["no counterpart"] += 1
                        continue
                    stat[how] += 1
                    if rec["module"] in mods:
                        stat["match"] += 1
                    else:
                        misses.append((rec["name"], rec["module"], sorted(mods)[:3]))
                run["vs " + ref_label] = dict(stat)
                run["misses vs " + ref_label] = misses[:5]
            row["runs"][label] = run
        results[level] = row
    return results


# ------------------------------------------------------------------ tables
def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"


def mix(evidence, order=("scope", "parameter", "propagated", "root")):
    return " ".join(f"{k[:4]}:{evidence.get(k, 0)}" for k in order if evidence.get(k))


def print_tables(results, ort_results, out=sys.stdout):
    w = out.write
    w("(a) torch.onnx.export (torch 1.13, opset 17, defaults) -> modelexport tag\n")
    w(f"{'model':<19}{'nodes':>6}  {'run':<8}{'tagged':>7}  evidence mix\n")
    for name, r in results.items():
        if r["export"] != "ok":
            w(f"{name:<19}{'-':>6}  torch.onnx.export failed: {r['export']}\n")
            continue
        first = True
        for label, run in r["runs"].items():
            head = f"{name:<19}{r['nodes']:>6}" if first else " " * 25
            first = False
            if "error" in run:
                w(f"{head}  {label:<8} ERROR {run['error']}\n")
                continue
            w(f"{head}  {label:<8}{pct(run['tagged'], r['nodes']):>7}  "
              f"{mix(run['evidence'])}\n")
    w("\nscope vs usage where both have own evidence (scope evidence / parameter evidence)\n")
    w(f"{'model':<19}{'both':>5}{'agree':>6}{'disagree':>9}  {'+H both':>8}{'agree':>6}"
      f"{'disagree':>9}   all nodes = auto+H: usage  usage+H\n")
    for name, r in results.items():
        a, ah = r.get("agreement"), r.get("agreement+H")
        if not a:
            continue
        cols = f"{a['agree'] + a['disagree']:>5}{a['agree']:>6}{a['disagree']:>9}"
        if ah:
            cols += f"  {ah['agree'] + ah['disagree']:>8}{ah['agree']:>6}{ah['disagree']:>9}"
        same = r.get("same_as_auto+H", {})
        if same:
            cols += " " * 22 + "".join(f"{pct(same.get(k, 0), r['nodes']):>7}"
                                       for k in ("usage", "usage+H"))
        w(f"{name:<19}{cols}\n")
    examples = [(name, e) for name, r in results.items()
                for e in (r.get("agreement+H") or r.get("agreement") or {}).get("examples", [])]
    if examples:
        w("disagreements (node: scope module | usage module):\n")
        for name, (node, s, u) in examples:
            w(f"  {name}: {node}: {s or '<root>'} | {u or '<root>'}\n")
    if not ort_results:
        return
    w("\n(b) ONNX Runtime optimized (optimized_model_filepath) -> tag --strategy usage\n")
    w(f"{'model':<9}{'level':<9}{'nodes':>6}  {'run':<8}{'tagged':>7}  "
      f"{'vs auto+H':>16}  {'vs same':>16}  {'n/i/none':<10}{'evidence':<20} contrib ops\n")
    for name, levels in ort_results.items():
        for level, row in levels.items():
            if "error" in row:
                w(f"{name:<9}{level:<9} ERROR {row['error']}\n")
                continue
            for label, run in row["runs"].items():
                if "error" in run:
                    w(f"{name:<9}{level:<9}{row['nodes']:>6}  {label:<8} ERROR {run['error']}\n")
                    continue
                cells = []
                for ref in ("auto+H", label):
                    s = run.get("vs " + ref, {})
                    n = s.get("name", 0) + s.get("init", 0)
                    cells.append(f"{s.get('match', 0)}/{n} {pct(s.get('match', 0), n)}")
                s = run.get("vs auto+H", {})
                comp = f"{s.get('name', 0)}/{s.get('init', 0)}/{s.get('no counterpart', 0)}"
                contrib = ",".join(f"{k}:{v}" for k, v in sorted(row["ops"].items()))
                w(f"{name:<9}{level:<9}{row['nodes']:>6}  {label:<8}"
                  f"{pct(run['tagged'], row['nodes']):>7}  {cells[0]:>16}  {cells[1]:>16}  "
                  f"{comp:<10}{mix(run['evidence']):<20} {contrib or '-'}\n")
    misses = [(name, level, m) for name, levels in ort_results.items()
              for level, row in levels.items() if "runs" in row
              for m in row["runs"].get("usage+H", {}).get("misses vs auto+H", [])[:3]]
    if misses:
        w("misses (usage+H vs auto+H; node: tagged | reference):\n")
        for name, level, (node, got, want) in misses:
            w(f"  {name} {level}: {node}: {got or '<root>'} | {want}\n")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=shutil.which("modelexport")
                        or str(REPO / "build" / "sdk" / "modelexport"))
    parser.add_argument("--plugin-dir", help="added to MODELEXPORT_PLUGIN_PATH")
    parser.add_argument("--work", help="scratch directory, kept (default: a temporary one, "
                        "removed at the end unless --keep)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary work files")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--variants", default="fresh,perturbed",
                        help="fresh: weights as constructed; perturbed: no two parameters "
                             "equal (trained-like)")
    parser.add_argument("--ort-models", default=",".join(ORT_MODELS),
                        help="models for part (b); '' skips it")
    parser.add_argument("--ort-levels", default="basic,extended")
    parser.add_argument("--json", help="also write the raw results here")
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {MODELS}")
    cli = Cli(args.cli, args.plugin_dir)
    with work_dir(args.work, args.keep, "mx-tagforeign-") as work:
        everything, failed = {}, False
        for variant in [v for v in args.variants.split(",") if v]:
            results, ort_results = {}, {}
            for name in models:
                t0 = time.time()
                try:
                    results[name] = run_model(name, cli, work, variant)
                except RuntimeError as error:
                    results[name] = {"export": str(error), "runs": {}}
                failed |= any("error" in r or r.get("untagged")
                              for r in results[name]["runs"].values())
                print(f"# {variant} {name}: {time.time() - t0:.0f} s", file=sys.stderr)
            for name in [m for m in args.ort_models.split(",") if m]:
                if results.get(name, {}).get("export") == "ok":
                    ort_results[name] = run_ort(name, cli, work, variant,
                                                args.ort_levels.split(","))
                    failed |= any("error" in row or any("error" in r or r.get("untagged")
                                                        for r in row["runs"].values())
                                  for row in ort_results[name].values())
            print(f"=== weights: {variant}\n")
            print_tables(results, ort_results)
            print()
            everything[variant] = {"a": results, "b": ort_results}
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(everything, indent=1))
        return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-export":
        export_one(sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-ort":
        ort_optimize(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(main(sys.argv[1:]))
