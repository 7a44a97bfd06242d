"""python manage.py guard_train: fit the guard's classifier on the training sets and calibrate its thresholds on dev.

Trains on guard_train.json, guard_v2_train.json and guard_v4_train.json: first the top layers of
the guard's MiniLM (``lab/guard/finetune.py``, ``weights/encoder_top.safetensors``), then the
logistic regression on the fine-tuned embeddings. The thresholds are chosen on development data
only: the separate dev sets (guard_v2_dev.json, guard_v4_dev.json, guard_v5_dev.json; with ``--no-finetune`` also
out-of-fold scores on the training sets, which a fine-tuned encoder has seen). Zero false
positives on owner speech first (the classifier alone blocks only above every safe dev request),
then recall. The evaluation and challenge sets are never read here.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from assistant.guard import THRESHOLDS_FILE, Thresholds
from assistant.guard.classifier import (
    CLASSIFIER_WEIGHTS,
    classifier_fit,
    cross_val_scores,
    file_digest,
    item_features,
)
from assistant.guard.dataset import DEV_SETS, HELD_OUT_SETS, TRAIN_SETS, figures_of, items_load
from assistant.guard.encoders import ENCODER_TOP, guard_encoder_reset
from lab.guard.training import (
    JUDGE_VERDICTS,
    band_calibrate,
    band_choose,
    band_judged,
    injection_threshold,
    reply_threshold,
    verdicts_load,
)


class Command(BaseCommand):
    help = (
        "Train the guard's classifier layer on the training set (fixed seed, under a minute) and choose "
        "its thresholds by 5-fold cross-validation; writes assistant/guard/weights/."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            help="A training set (repeatable; default: guard_train.json and guard_v2_train.json; never an evaluation set).",
        )
        parser.add_argument("--dev", action="append", default=[],
                            help="A development set the thresholds are chosen on (repeatable; default: v2 and v4 dev).")
        parser.add_argument("--max-llm-share", type=float, default=0.05,
                            help="The most of the dev requests the band may send to the LLM judge (issue 17: 5%%).")
        parser.add_argument("--no-finetune", action="store_true",
                            help="Keep the packaged MiniLM as it is (removes weights/encoder_top.safetensors).")
        parser.add_argument(
            "--judge-verdicts",
            default=str(JUDGE_VERDICTS),
            help="The LLM judge's saved answers on the training set (guard_eval --save-verdicts), for the band.",
        )
        parser.add_argument(
            "--calibrate-only", action="store_true",
            help="Keep the shipped encoder and regression; choose the band again on dev with the judge's own "
                 "dev answers (--judge-dev).",
        )
        parser.add_argument(
            "--judge-dev", action="append", default=[],
            help="The judge's saved answers on a dev set (guard_eval --layers llm --save-verdicts; repeatable).",
        )
        parser.add_argument(
            "--injection",
            action="store_true",
            help="Also re-tune the NanoGuard threshold on the safe training requests (about a minute more).",
        )

    def handle(self, *args, **options) -> None:
        started = time.perf_counter()
        self.max_llm_share = options["max_llm_share"]
        paths = [Path(p) for p in options["set"]] or list(TRAIN_SETS)
        dev_paths = [Path(p) for p in options["dev"]] or list(DEV_SETS)
        held_out = {p.resolve() for p in HELD_OUT_SETS}
        if any("eval" in p.name or "challenge" in p.name or p.resolve() in held_out for p in (*paths, *dev_paths)):
            raise CommandError(
                "Train on the training sets; the evaluation and challenge sets stay held out."
            )
        items = [item for p in paths for item in items_load(p)]
        dev = [item for p in dev_paths if p.is_file() for item in items_load(p)]
        if options["calibrate_only"]:
            self._recalibrate(dev, dev_paths, [Path(p) for p in options["judge_dev"]])
            return
        finetuned = self._encoder(items, finetune=not options["no_finetune"])
        x = item_features(items)
        scores = cross_val_scores(items, x)
        at_half = figures_of(items, list(scores >= 0.5))
        self.stdout.write(
            f"classifier, 5-fold out of fold on {len(items)} items from {', '.join(p.name for p in paths)}: F1 {at_half.f1:.3f} "
            f"(precision {at_half.precision:.3f}, recall {at_half.recall:.3f}) at 0.5"
        )
        # Requests only: a reply has its own threshold (below), the training replies being few.
        requests = [n for n, item in enumerate(items) if item.reply is None]
        band, dev_scores = self._band(items, x, scores, [] if finetuned else requests, dev,
                                      Path(options["judge_verdicts"]))
        current = Thresholds.load()
        injection = current.injection
        if options["injection"]:
            injection = self._injection(items, scores, dev, dev_scores, band)
        thresholds = Thresholds(
            safe_below=round(band.safe_below, 3),
            unsafe_above=round(band.unsafe_above, 3),
            reply_unsafe_above=reply_threshold([s for s, i in zip(scores, items, strict=True) if i.reply and not i.unsafe]),
            injection=injection,
            data_injection=max(injection, current.data_injection),
            fallback=current.fallback,
        )
        weights = classifier_fit(items, x)
        weights.meta["trained_on"] = ", ".join(f"{p.name}@{file_digest(p)}" for p in paths)
        weights.save(CLASSIFIER_WEIGHTS)
        cross_validation = {
            "folds": 5,
            "dev_set": ", ".join(p.name for p in dev_paths) if dev else None,
            "encoder": finetuned or "packaged MiniLM",
            "f1_at_half": round(at_half.f1, 4),
            "llm_share_of_calibration_requests": round(band.llm_calls / max(1, self.calibration_requests), 3),
            "weighted_errors_with_llm": None if np.isnan(band.errors) else band.errors,
        }
        THRESHOLDS_FILE.write_text(json.dumps({**thresholds.__dict__, "cross_validation": cross_validation}, indent=2) + "\n")
        self.stdout.write(
            f"thresholds: safe at or below {thresholds.safe_below}, unsafe at or above {thresholds.unsafe_above} "
            f"(a reply: {thresholds.reply_unsafe_above}), "
            f"injection at or above {thresholds.injection}"
        )
        self.stdout.write(
            f"wrote {CLASSIFIER_WEIGHTS} ({CLASSIFIER_WEIGHTS.stat().st_size // 1024} KiB) and {THRESHOLDS_FILE} "
            f"in {time.perf_counter() - started:.0f} s"
        )

    def _recalibrate(self, dev, dev_paths: list[Path], judge_files: list[Path]) -> None:
        """The band again, on dev with the judge's dev answers; the weights and other thresholds stay."""
        from assistant.guard.classifier import ClassifierLayer
        from assistant.guard.rules import injection_rule

        if not judge_files:
            raise CommandError("--calibrate-only needs the judge's dev answers: --judge-dev FILE (guard_eval --save-verdicts).")
        verdicts = {key: unsafe for path in judge_files for key, unsafe in verdicts_load(path).items()}
        # What reaches the classifier: the rules decide an injection shape before it.
        requests = [item for item in dev if item.reply is None and injection_rule(item.text) is None]
        scores = ClassifierLayer().weights.unsafe_scores(item_features(requests))[0]  # as the guard reads them
        band = band_judged(requests, scores, verdicts, max_llm_share=self.max_llm_share)
        current = Thresholds.load()
        data = json.loads(THRESHOLDS_FILE.read_text())
        data.update(safe_below=round(band.safe_below, 3), unsafe_above=round(band.unsafe_above, 3))
        data["band"] = {
            "dev_set": ", ".join(p.name for p in dev_paths), "judge_answers": len(verdicts),
            "requests": len(requests), "llm_calls": band.llm_calls, "errors_with_judge": band.errors,
            "before": [current.safe_below, current.unsafe_above],
        }
        THRESHOLDS_FILE.write_text(json.dumps(data, indent=2) + "\n")
        self.stdout.write(
            f"band on {len(requests)} dev requests with the judge's answers: safe at or below {band.safe_below}, "
            f"unsafe at or above {band.unsafe_above} (was {current.safe_below} / {current.unsafe_above}); "
            f"{band.llm_calls} to the judge, {band.errors:.0f} errors"
        )

    def _encoder(self, items, *, finetune: bool) -> dict | None:
        """Fine-tune the guard's top MiniLM layers (or go back to the packaged encoder); None: packaged."""
        if not finetune:
            ENCODER_TOP.unlink(missing_ok=True)
            guard_encoder_reset()
            return None
        from lab.guard.finetune import encoder_finetune

        self.stdout.write(f"fine-tuning the guard's MiniLM on {len(items)} items (one CPU thread)...")
        info = encoder_finetune(items, ENCODER_TOP, log=self.stdout.write)
        guard_encoder_reset()  # the features below read the layers back through the runtime's loader
        self.stdout.write(f"wrote {ENCODER_TOP} ({info['bytes'] / 1e6:.1f} MB) in {info['seconds']} s")
        return info

    def _band(self, items, x, scores, requests, dev, verdicts_path: Path):
        """The judge's band: calibrated on dev (and out-of-fold scores), else from the judge's saved answers."""
        dev_scores = np.zeros(0)
        if dev:
            weights = classifier_fit(items, x)
            dev_scores = weights.unsafe_scores(item_features(dev))[0]
            dev_requests = [n for n, item in enumerate(dev) if item.reply is None]
            band = band_calibrate(
                [dev[n] for n in dev_requests] + [items[n] for n in requests],
                np.concatenate([dev_scores[dev_requests], scores[requests]]),
                max_llm_share=self.max_llm_share,
            )
            self.calibration_requests = len(dev_requests) + len(requests)
            self.stdout.write(
                f"band calibrated on {len(dev_requests)} dev requests and {len(requests)} out-of-fold training "
                f"requests: {band.llm_calls} would go to the LLM, {band.errors:.0f} unsafe below the safe side"
            )
            return band, dev_scores
        requests = requests or [n for n, item in enumerate(items) if item.reply is None]
        self.calibration_requests = len(requests)
        verdicts = verdicts_load(verdicts_path) if verdicts_path.is_file() else None
        band = band_choose([items[n] for n in requests], scores[requests], verdicts)
        if verdicts is None:
            self.stdout.write(f"no judge answers at {verdicts_path}: band from the classifier alone")
        else:
            self.stdout.write(
                f"band with the judge's saved answers: {band.llm_calls} of {len(requests)} requests go to the LLM "
                f"({band.llm_missing} without a saved answer), weighted errors {band.errors:.1f}"
            )
        return band, dev_scores

    def _injection(self, items, scores, dev, dev_scores, band) -> float:
        from assistant.guard.injection import InjectionLayer

        layer = InjectionLayer()
        # Only the safe requests NanoGuard would read with this band (uncertain, or long and not
        # blocked): it pads every text to 512 tokens, so scoring all of them is slow on a CPU.
        safe_texts = _reaching_nanoguard(items, scores, band) + (
            _reaching_nanoguard(dev, dev_scores, band) if dev else []
        )
        injection = injection_threshold(layer.score_many(safe_texts))
        self.stdout.write(f"NanoGuard threshold from {len(safe_texts)} safe requests it would read: {injection}")
        return injection


def _reaching_nanoguard(items, scores, band) -> list[str]:
    """Safe requests the guard would hand to NanoGuard: in the band, or long and not blocked."""
    from assistant.guard import CLASSIFIER_MAX_WORDS
    from assistant.guard.classifier import DEFAULT_BUSINESS_TYPE
    from assistant.guard.vocabulary import safe_terms_mask

    return [
        safe_terms_mask(item.text, item.business_type or DEFAULT_BUSINESS_TYPE)  # as the guard reads it
        for item, score in zip(items, scores, strict=True)
        if not item.unsafe and item.reply is None and score < band.unsafe_above
        and (score > band.safe_below or len(item.text.split()) > CLASSIFIER_MAX_WORDS)
    ]
