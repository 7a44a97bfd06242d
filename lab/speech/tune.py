"""Adapt Whisper to shop speech: train on ``lab.speech.tune_data``'s clips, write the weights.

    python -m lab.speech.tune_data --clips 3200 --seed 11             # the clips, their features and encoder outputs
    python -m lab.speech.tune --epochs 3 --encoder-layers 2 --bf16     # train; writes the adapted layers

The token embeddings, the encoder's convolutions and its lower layers stay as shipped; the decoder's
four layers and its final norm are trained, and with ``--encoder-layers K`` the encoder's top K layers
and its final norm too (teacher-forced, cross-entropy on the words after the prompt, the prompt as
``speech.transcribe`` gives it), in PyTorch on a copy of CTranslate2's Whisper read from the bundled
``model.bin`` (``speech.ct2_file``), checked against CTranslate2 itself before training (the first
clips' greedy words and mean token scores, and the encoder's outputs, are printed side by side:
CTranslate2 runs the weights in int8, the copy in float32, so they agree closely, not exactly). The
frozen lower encoder layers run once per clip, before training. The result is written as
``speech/weights/shop_speech.safetensors`` (float16, the replaced variables only; ``--out``) and,
with ``--folder``, as a whole CTranslate2 model folder to try with ``SHELFWISE_STT_MODEL``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import time
from pathlib import Path

import numpy as np

from lab.speech.spoken_set import ROOT

DATA = ROOT / "var" / "tune"
WEIGHTS = ROOT / "speech" / "weights" / "shop_speech.safetensors"
D, HEADS = 384, 6
NAMES = {"ln1": "self_attention/layer_norm", "qkv": "self_attention/linear_0", "o1": "self_attention/linear_1",
         "ln2": "attention/layer_norm", "q": "attention/linear_0", "kv": "attention/linear_1",
         "o2": "attention/linear_2", "ln3": "ffn/layer_norm", "f1": "ffn/linear_0", "f2": "ffn/linear_1"}


def _variables_of(layer, prefix: str, names: dict) -> dict:
    """The CTranslate2 variable each parameter of ``layer``'s ``names`` modules is (norms: gamma, beta)."""
    from torch import nn

    out = {}
    for attr, name in names.items():
        module = getattr(layer, attr)
        first, second = ("gamma", "beta") if isinstance(module, nn.LayerNorm) else ("weight", "bias")
        out[f"{prefix}{name}/{first}"], out[f"{prefix}{name}/{second}"] = module.weight, module.bias
    return out


def decoder_class():
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Layer(nn.Module):
        """A pre-norm decoder layer as CTranslate2 runs it (fused q/k/v, fused cross k/v, GELU)."""

        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.qkv, self.o1 = nn.LayerNorm(D), nn.Linear(D, 3 * D), nn.Linear(D, D)
            self.ln2, self.q, self.kv, self.o2 = nn.LayerNorm(D), nn.Linear(D, D), nn.Linear(D, 2 * D), nn.Linear(D, D)
            self.ln3, self.f1, self.f2 = nn.LayerNorm(D), nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

        def forward(self, x, memory, mask):
            batch, length, _ = x.shape

            def heads(z):
                return z.view(batch, -1, HEADS, D // HEADS).transpose(1, 2)

            q, k, v = self.qkv(self.ln1(x)).split(D, -1)
            a = F.scaled_dot_product_attention(heads(q), heads(k), heads(v), attn_mask=mask)
            x = x + self.o1(a.transpose(1, 2).reshape(batch, length, D))
            k, v = self.kv(memory).split(D, -1)
            a = F.scaled_dot_product_attention(heads(self.q(self.ln2(x))), heads(k), heads(v))
            x = x + self.o2(a.transpose(1, 2).reshape(batch, length, D))
            return x + self.f2(F.gelu(self.f1(self.ln3(x))))

    class Decoder(nn.Module):
        """CTranslate2's Whisper decoder in PyTorch; embeddings and positions frozen."""

        def __init__(self, variables: dict) -> None:
            super().__init__()

            def tensor(name):
                return torch.tensor(np.asarray(variables[name], dtype=np.float32))

            self.embeddings = nn.Parameter(tensor("decoder/embeddings/weight"), requires_grad=False)
            self.positions = nn.Parameter(tensor("decoder/position_encodings/encodings"), requires_grad=False)
            count = len({k.split("/")[1] for k in variables if re.match(r"decoder/layer_\d+/", k)})
            self.layers = nn.ModuleList(Layer() for _ in range(count))
            self.norm = nn.LayerNorm(D)
            for name, param in self.trained().items():
                param.data = tensor(name)

        def trained(self) -> dict:
            """The CTranslate2 variable each trained parameter is."""
            out = {}
            for i, layer in enumerate(self.layers):
                out.update(_variables_of(layer, f"decoder/layer_{i}/", NAMES))
            out["decoder/layer_norm/gamma"], out["decoder/layer_norm/beta"] = self.norm.weight, self.norm.bias
            return out

        def forward(self, tokens, memory):
            length = tokens.shape[1]
            x = self.embeddings[tokens] + self.positions[:length]
            mask = torch.ones(length, length, dtype=torch.bool, device=tokens.device).tril()
            for layer in self.layers:
                x = layer(x, memory, mask)
            return self.norm(x)

        def logits(self, hidden):
            return hidden @ self.embeddings.T

    return Decoder


ENCODER_NAMES = {"ln1": "self_attention/layer_norm", "qkv": "self_attention/linear_0", "o1": "self_attention/linear_1",
                 "ln2": "ffn/layer_norm", "f1": "ffn/linear_0", "f2": "ffn/linear_1"}


def encoder_class():
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Layer(nn.Module):
        """A pre-norm encoder layer as CTranslate2 runs it (fused q/k/v, GELU)."""

        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.qkv, self.o1 = nn.LayerNorm(D), nn.Linear(D, 3 * D), nn.Linear(D, D)
            self.ln2, self.f1, self.f2 = nn.LayerNorm(D), nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

        def forward(self, x):
            batch, length, _ = x.shape

            def heads(z):
                return z.view(batch, length, HEADS, D // HEADS).transpose(1, 2)

            q, k, v = self.qkv(self.ln1(x)).split(D, -1)
            a = F.scaled_dot_product_attention(heads(q), heads(k), heads(v))
            x = x + self.o1(a.transpose(1, 2).reshape(batch, length, D))
            return x + self.f2(F.gelu(self.f1(self.ln2(x))))

    class Encoder(nn.Module):
        """CTranslate2's Whisper encoder in PyTorch, split where training starts: ``bottom`` (the
        convolutions and the first layers, frozen, run once per clip) and ``top`` (the last ``trained``
        layers and the final norm)."""

        def __init__(self, variables: dict, trained: int) -> None:
            super().__init__()

            def tensor(name):
                return torch.tensor(np.asarray(variables[name], dtype=np.float32))

            self.conv1, self.conv2 = nn.Conv1d(80, D, 3, padding=1), nn.Conv1d(D, D, 3, stride=2, padding=1)
            for conv, name in ((self.conv1, "conv1"), (self.conv2, "conv2")):
                conv.weight.data, conv.bias.data = tensor(f"encoder/{name}/weight"), tensor(f"encoder/{name}/bias")
            self.positions = nn.Parameter(tensor("encoder/position_encodings/encodings"), requires_grad=False)
            count = len({k.split("/")[1] for k in variables if re.match(r"encoder/layer_\d+/", k)})
            self.layers = nn.ModuleList(Layer() for _ in range(count))
            self.norm = nn.LayerNorm(D)
            self.split = count - trained
            for name, param in self._variables(range(count)).items():
                param.data = tensor(name)
            for param in self.parameters():
                param.requires_grad = False
            for param in self.trained().values():
                param.requires_grad = True

        def _variables(self, indices) -> dict:
            out = {}
            for i in indices:
                out.update(_variables_of(self.layers[i], f"encoder/layer_{i}/", ENCODER_NAMES))
            out["encoder/layer_norm/gamma"], out["encoder/layer_norm/beta"] = self.norm.weight, self.norm.bias
            return out

        def trained(self) -> dict:
            """The CTranslate2 variable each trained parameter is (none when no layer is trained)."""
            return self._variables(range(self.split, len(self.layers))) if self.split < len(self.layers) else {}

        def bottom(self, features):
            x = F.gelu(self.conv2(F.gelu(self.conv1(features)))).transpose(1, 2)
            x = x + self.positions[: x.shape[1]]
            for layer in self.layers[: self.split]:
                x = layer(x)
            return x

        def top(self, x):
            for layer in self.layers[self.split :]:
                x = layer(x)
            return self.norm(x)

    return Encoder


def _bundled_folder() -> Path:
    from speech.model import BUNDLED_DISTRIBUTION, _folder_in_distribution

    return _folder_in_distribution(BUNDLED_DISTRIBUTION)


def _examples(tokenizer, model, rows) -> list[tuple[list[int], int]]:
    """Each clip's tokens (prompt, then the words and end of text) and where the words start."""
    out = []
    for row in rows:
        previous = tokenizer.encode(" " + row["prompt"].strip()) if row["prompt"] else []
        start = model.get_prompt(tokenizer, previous, without_timestamps=True)
        words = tokenizer.encode(" " + row["text"]) + [tokenizer.eot]
        out.append((start + words, len(start)))
    return out


def _loss(decoder, batch, memory_of, torch):
    """Mean cross-entropy of the words (after each prompt) over a batch of ``(clip, (tokens, start))``;
    ``memory_of(clips)`` is the encoder's output for those clips."""
    examples = [ex for _, ex in batch]
    length = max(len(t) for t, _ in examples)
    tokens = torch.zeros(len(examples), length, dtype=torch.long)
    for i, (t, _) in enumerate(examples):
        tokens[i, : len(t)] = torch.tensor(t)
    hidden = decoder(tokens, memory_of([i for i, _ in batch]))
    picked, targets = [], []
    for i, (t, start) in enumerate(examples):
        picked.append(hidden[i, start - 1 : len(t) - 1])
        targets.append(tokens[i, start : len(t)])
    logits = decoder.logits(torch.cat(picked))
    return torch.nn.functional.cross_entropy(logits, torch.cat(targets))


def check(decoder, tokenizer, model, rows, encoded, torch, count: int = 4) -> None:
    """The PyTorch copy against CTranslate2 on the first clips: greedy words and per-token scores."""
    import ctranslate2

    for k, (tokens, start) in enumerate(_examples(tokenizer, model, rows[:count])):
        memory = encoded[k : k + 1].astype(np.float32)
        ours = ctranslate2.StorageView.from_array(memory)
        result = model.model.generate(ours, [tokens[:start]], beam_size=1, max_length=start + 40, return_scores=True)[0]
        ids = result.sequences_ids[0] + [tokenizer.eot]
        with torch.no_grad():
            hidden = decoder(torch.tensor([tokens[:start] + ids]), torch.tensor(memory))
            logp = torch.log_softmax(decoder.logits(hidden[0, start - 1 : -1]), -1)
            mine = float(logp.gather(1, torch.tensor(ids)[:, None]).mean())
            greedy = [int(i) for i in logp.argmax(-1)]
        print(f"check: ct2 {tokenizer.decode(result.sequences_ids[0])!r} {result.scores[0]:.3f} | torch mean {mine:.3f}"
              f" | same greedy {greedy == ids}")


def train(args) -> None:
    import django
    import torch

    django.setup()
    from faster_whisper.tokenizer import Tokenizer

    from speech import ct2_file
    from speech.model import get_model

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    data = Path(args.data)
    rows = [json.loads(line) for line in (data / "clips.jsonl").read_text().splitlines()]
    encoded = np.load(data / "encoded.npy", mmap_mode="r")
    model = get_model()
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language="en")
    source = _bundled_folder()
    base_bytes = (source / "model.bin").read_bytes()
    variables = ct2_file.read(base_bytes).variables
    decoder = decoder_class()(variables)
    check(decoder, tokenizer, model, rows, encoded, torch)
    memory_of, encoder = _memory(args, variables, data, encoded, torch)
    examples = list(enumerate(_examples(tokenizer, model, rows)))
    rng = random.Random(args.seed)
    rng.shuffle(examples)
    held = examples[: max(1, len(examples) // 20)]
    work = examples[len(held) :]
    params = [p for p in decoder.parameters() if p.requires_grad] + list(encoder.trained().values() if encoder else [])
    optimiser = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * math.ceil(len(work) / args.batch)
    warm = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm)))

    def held_loss() -> float:
        with torch.no_grad():
            return float(np.mean([float(_loss(decoder, held[i : i + 32], memory_of, torch)) for i in range(0, len(held), 32)]))

    print(f"{len(work)} clips to train on, {len(held)} held for the loss; {steps} steps; held loss {held_loss():.4f}")
    began, step = time.time(), 0
    for epoch in range(args.epochs):
        rng.shuffle(work)
        for i in range(0, len(work), args.batch):
            decoder.train()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                loss = _loss(decoder, work[i : i + args.batch], memory_of, torch)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            schedule.step()
            step += 1
            if step % 25 == 0:
                print(f"step {step}/{steps} loss {loss.item():.4f} ({time.time() - began:.0f} s)", flush=True)
        decoder.eval()
        print(f"epoch {epoch + 1}: held loss {held_loss():.4f}")
    trained = {**decoder.trained(), **(encoder.trained() if encoder else {})}
    weights = {name: p.detach().to(torch.float16).numpy() for name, p in trained.items()}
    _save(weights, Path(args.out))
    if args.folder:
        folder = Path(args.folder)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
            shutil.copy(source / name, folder / name)
        (folder / "model.bin").write_bytes(ct2_file.patched(base_bytes, weights))
        print(f"model folder {folder}")


def _memory(args, variables, data, encoded, torch):
    """``(memory_of, encoder)``: the encoder's output for a list of clips, and the encoder being trained
    (None when only the decoder is). With ``--encoder-layers K`` the clips' features are run once
    through the frozen part of a PyTorch copy of the encoder (checked against CTranslate2's outputs on
    the first clips) and the top K layers run in every step."""
    if not args.encoder_layers:
        return (lambda clips: torch.tensor(np.stack([encoded[i] for i in clips]).astype(np.float32))), None
    encoder = encoder_class()(variables, args.encoder_layers)
    features = np.load(data / "features.npy", mmap_mode="r")
    lower = np.zeros((len(features), features.shape[2] // 2, D), dtype=np.float16)
    began = time.time()
    with torch.no_grad():
        for i in range(0, len(features), 16):
            lower[i : i + 16] = encoder.bottom(torch.tensor(features[i : i + 16].astype(np.float32))).numpy()
        for k in range(4):
            ours = encoder.top(torch.tensor(lower[k : k + 1].astype(np.float32)))[0].numpy()
            theirs = encoded[k].astype(np.float32)
            cosine = (ours * theirs).sum(-1) / (np.linalg.norm(ours, axis=-1) * np.linalg.norm(theirs, axis=-1))
            print(f"check encoder {k}: cosine to CTranslate2 mean {cosine.mean():.4f} min {cosine.min():.4f},"
                  f" mean abs difference {np.abs(ours - theirs).mean():.4f} (values' mean abs {np.abs(theirs).mean():.3f})")
    print(f"lower {encoder.split} encoder layers run once over {len(features)} clips in {time.time() - began:.0f} s")

    def memory_of(clips):
        return encoder.top(torch.tensor(np.stack([lower[i] for i in clips]).astype(np.float32)))

    return memory_of, encoder


def _save(weights: dict, path: Path) -> None:
    from safetensors.numpy import save_file

    path.parent.mkdir(parents=True, exist_ok=True)
    save_file({k.replace("/", "."): v for k, v in weights.items()}, str(path),
              metadata={"about": "Whisper tiny.en layers adapted to shop speech (lab.speech.tune)"})
    print(f"weights {path} ({path.stat().st_size / 1e6:.1f} MB)")


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    # Training starts from tiny.en as shipped: the check compares the copy with CTranslate2 running the same weights.
    os.environ["SHELFWISE_STT_DECODER"] = "none"
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", default=str(DATA), help="lab.speech.tune_data's folder")
    parser.add_argument("--encoder-layers", type=int, default=0, help="also train the encoder's top K layers and final norm")
    parser.add_argument("--bf16", action="store_true", help="bfloat16 autocast for the training steps")
    parser.add_argument("--out", default=str(WEIGHTS))
    parser.add_argument("--folder", default="", help="also write a whole CTranslate2 model folder here")
    train(parser.parse_args())


if __name__ == "__main__":
    main()
