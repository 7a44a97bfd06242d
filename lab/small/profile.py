"""Time one training step of the small model's base on this CPU, part by part: forward, head + loss, backward, AdamW.

``python -m lab.small.profile [--configs full32,lora32,lora32top12,freeze20] [--rows 4 --len 128 --steps 2]``
(``--base``: the dequantised base folder that ``smallmodel train`` creates, ``var/models/smollm2-135m``).
Configs: ``full32`` (every weight, fp32), ``fullbf16ac`` (bf16 autocast), ``fullbf16w`` (bf16 weights),
``lora32`` (LoRA r16 on all layers), ``lora32topN`` (LoRA on the top N layers), ``freezeN`` (full
fine-tune above the bottom N layers). Random token ids, a third of the positions labelled like the data.
Run it under the heavy lock
it prints one JSON line per config.
"""
import argparse
import json
import time

import torch
from transformers import AutoModelForCausalLM


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--configs", default="full32,fullbf16ac,lora32,lora32top12,freeze18")
    p.add_argument("--rows", type=int, default=8)
    p.add_argument("--len", type=int, default=128)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--base", default="var/models/smollm2-135m")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    base = a.base
    torch.manual_seed(0)
    ids = torch.randint(100, 40000, (a.rows, a.len))
    labels = ids.clone()
    labels[:, : a.len * 2 // 3] = -100  # a third of positions labelled, like the data

    def build(cfg):
        model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.bfloat16 if cfg == "fullbf16w" else torch.float32)
        if cfg.startswith("lora"):
            from peft import LoraConfig, get_peft_model
            kw = {}
            if "top" in cfg:
                n = int(cfg.split("top")[1])
                kw["layers_to_transform"] = list(range(30 - n, 30))
            model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, task_type="CAUSAL_LM",
                target_modules=["q_proj","k_proj","v_proj","o_proj","gate_proj","up_proj","down_proj"], **kw))
            inner = model.get_base_model()
        else:
            inner = model
        if cfg.startswith("freeze"):
            k = int(cfg[6:])
            for p_ in inner.model.embed_tokens.parameters():
                p_.requires_grad_(False)
            for layer in inner.model.layers[:k]:
                for p_ in layer.parameters():
                    p_.requires_grad_(False)
        model.train()
        return model, inner

    out = {}
    for cfg in a.configs.split(","):
        model, inner = build(cfg)
        params = [p_ for p_ in model.parameters() if p_.requires_grad]
        opt = torch.optim.AdamW(params, lr=1e-5)
        times = {"forward": [], "head_loss": [], "backward": [], "optimizer": []}
        for step in range(a.steps + 1):
            ac = torch.autocast("cpu", dtype=torch.bfloat16, enabled="bf16ac" in cfg)
            t0 = time.perf_counter()
            with ac:
                hidden = inner.model(input_ids=ids).last_hidden_state
            t1 = time.perf_counter()
            with ac:
                sl = labels[:, 1:]
                where = sl != -100
                logits = inner.lm_head(hidden[:, :-1][where]).float()
                loss = torch.nn.functional.cross_entropy(logits, sl[where])
            t2 = time.perf_counter()
            loss.backward()
            t3 = time.perf_counter()
            opt.step()
            opt.zero_grad(set_to_none=True)
            t4 = time.perf_counter()
            if step:
                for k, v in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                    times[k].append(v)
        med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
        total = sum(med.values())
        out[cfg] = {"tok_s": round(a.rows * a.len / total, 1), **{k: round(v, 3) for k, v in med.items()},
                    "trainable_M": round(sum(p_.numel() for p_ in params) / 1e6, 2)}
        print(cfg, json.dumps(out[cfg]), flush=True)
        del model, inner, opt


if __name__ == "__main__":
    main()
