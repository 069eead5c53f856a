#!/usr/bin/env python3
"""A LLaMA-shaped decoder with random weights saved as a `.pt2` (dynamic batch
and sequence), for benchmarks/lean_graphs.py outside CI:

    /work/venvs/pt2/bin/python benchmarks/make_decoder_pt2.py OUT.pt2 --size 1b   # ~1.1 B parameters, 4.4 GB
    /work/venvs/pt2/bin/python benchmarks/make_decoder_pt2.py OUT.pt2 --size 200m
Writes OUT.inputs.npz beside it (lean_graphs.py runs the files on it).
The 1b size needs ~10 GB of RAM and disk while torch.export saves it.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "zoo_pt2"))

SIZES = {  # TinyLlama-1.1B's shape, and a smaller one of the same family
    "1b": dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
               num_key_value_heads=4, vocab_size=32000),
    "200m": dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=10, num_attention_heads=16,
                 num_key_value_heads=4, vocab_size=32000),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", choices=sorted(SIZES), default="200m")
    args = ap.parse_args()
    import numpy as np
    import torch
    import pt2_models
    build = pt2_models._hf("LlamaForCausalLM", "LlamaConfig", max_position_embeddings=2048, **SIZES[args.size])
    vocab = SIZES[args.size]["vocab_size"]
    case = pt2_models.Case("decoder", "transformers", build, pt2_models._text_inputs(vocab),
                           dict(pt2_models._TEXT_DYN), {"seq": (2, 2048)})
    with torch.no_grad():
        ep, info = pt2_models.export(case)
    if ep is None:
        sys.exit(f"torch.export failed: {info}")
    torch.export.save(ep, args.out)
    np.savez(args.out[:-4] + ".inputs.npz", **{k: v.numpy() for k, v in case.inputs(0).items()})
    print(f"wrote {args.out}: dynamic {info['dynamic']}")


if __name__ == "__main__":
    main()
