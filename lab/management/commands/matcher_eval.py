"""python manage.py matcher_eval [--set packs/bundled/grocery/evaluation/routing_set.json] [--png var/matcher_curve.png]

The fast-path matcher alone, without the router model: on the development set by 10-fold
cross-validation of its embedding head, and on the held-out routing set as it serves. Prints the
share it answers, its precision (action, and action+item), per source, the confusion of its wrong
answers, and the threshold's coverage-vs-precision curve (also drawn as a PNG with ``--png``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.bench.report import rate_text
from lab.bench.routing import RoutingSetError, routing_set_load
from lab.bench.stores import (
    bench_store_create,
    bench_store_delete,
    migrations_pending,
)
from packs.source import GROCERY_EVALUATION

# Grocery's second development set: written apart from the held-out set, never trained on, it chose
# the thresholds. Not a pack file (a pack holds only the files its roles and manifest name).
THRESHOLD_SET = Path(__file__).resolve().parents[3] / "assistant" / "data" / "routing_dev2.json"


class Command(BaseCommand):
    help = "Score the fast-path matcher alone: coverage, precision, wrong answers, the threshold curve."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--set", dest="path", default=str(GROCERY_EVALUATION / "routing_set.json"), help="The held-out set.")
        parser.add_argument("--dev", default=str(GROCERY_EVALUATION / "routing_dev.json"), help="The development set (cross-validated).")
        parser.add_argument("--threshold-set", default=str(THRESHOLD_SET),
                            help="The second development set: never trained on, it chose the thresholds.")
        parser.add_argument("--png", default=None, help="Draw the coverage-vs-precision curve to this PNG.")
        parser.add_argument("--business-type", default="grocery")
        parser.add_argument("--taught", action="store_true",
                            help="Measure taught phrases instead: teach one set with its gold actions, score another.")

    def handle(self, *args, **options) -> None:
        from assistant.grounding import Catalog
        from assistant.lexicon import lexicon_for
        from assistant.matcher.templates import matcher_pack
        from lab import matcher_eval as evaluation
        from ledger import selectors

        pending = migrations_pending()
        if pending:
            raise CommandError(f"The database is not migrated ({', '.join(pending[:3])}...): run manage.py migrate first.")
        business_type = options["business_type"]
        pack = matcher_pack(business_type)
        if pack is None:
            raise CommandError(f"The business type {business_type!r} has no matcher templates.")
        try:
            held_out = routing_set_load(options["path"])
            dev = routing_set_load(options["dev"])
            second = routing_set_load(options["threshold_set"])
        except RoutingSetError as exc:
            raise CommandError(str(exc)) from exc
        lexicon = lexicon_for(business_type)
        store = bench_store_create(label="matcher-eval")
        try:
            catalog = Catalog.from_products(selectors.product_list(store=store), lexicon=lexicon)
            common = {"business_type": business_type, "catalog": catalog, "lexicon": lexicon}
            if options["taught"]:
                self._taught(dev, second, held_out, pack=pack, common=common)
                return
            scored = {
                "development (CV)": (f"{Path(options['dev']).name} (10-fold CV of the head; templates in-sample)",
                                     evaluation.score_set(dev, cross_validate=True, **common)),
                "threshold set": (f"{Path(options['threshold_set']).name} (second development set, never trained on)",
                                  evaluation.score_set(second, **common)),
                "held out": (f"{Path(options['path']).name} (held out)", evaluation.score_set(held_out, **common)),
            }
        finally:
            bench_store_delete(store=store)
        for label, scores in scored.values():
            self._report(label, evaluation.summary(scores, pack.threshold, pack.weak_threshold))
        curves = {name: evaluation.curve(scores, weak_threshold=pack.weak_threshold) for name, (_, scores) in scored.items()}
        self.stdout.write("Threshold curve (threshold: coverage/precision on " + " | ".join(curves) + "):")
        for points in zip(*curves.values(), strict=True):
            self.stdout.write(f"  {points[0][0]:.2f}: " + " | ".join(f"{c:6.1%} {p:7.2%}" for _, c, p in points))
        if options["png"]:
            evaluation.plot_curve(curves, options["png"], chosen=pack.threshold)
            self.stdout.write(f"Wrote {options['png']}")

    def _taught(self, dev, second, held_out, *, pack, common) -> None:
        """Taught phrases: each development set taught and the other scored; then the held-out set, once."""
        from assistant.matcher.taught import SIMILARITY, TaughtSet
        from lab import matcher_eval as evaluation
        from lab import taught_eval

        out = self.stdout.write
        catalog, lexicon = common["catalog"], common["lexicon"]
        dev_taught = taught_eval.teach_items(dev, catalog=catalog, lexicon=lexicon)
        second_taught = taught_eval.teach_items(second, catalog=catalog, lexicon=lexicon)
        curves = {
            "dev taught, dev2 asked": taught_eval.taught_curve(taught_eval.taught_scores(dev_taught, second, **common)),
            "dev2 taught, dev asked": taught_eval.taught_curve(taught_eval.taught_scores(second_taught, dev, **common)),
        }
        out("Taught phrases alone (threshold: answered / right, " + " | ".join(curves) + "):")
        for points in zip(*curves.values(), strict=True):
            out(f"  {points[0][0]:.2f}: " + " | ".join(f"{n:4d} / {ok:4d}" for _, n, ok in points))
        out(f"Lowest threshold right on every answer at and above it, both ways: {taught_eval.lowest_exact(*curves.values())}"
            f" (shipped: {SIMILARITY})")
        both = TaughtSet(texts=dev_taught.texts + second_taught.texts, actions=dev_taught.actions + second_taught.actions,
                         vectors=np.concatenate([dev_taught.vectors, second_taught.vectors]))
        alone = [s for s in taught_eval.taught_scores(both, held_out, **common)
                 if s.action is not None and s.similarity >= SIMILARITY]
        out(f"\nHeld out, both development sets taught ({len(both.texts)} phrases), the taught layer alone at {SIMILARITY}: "
            f"answers {rate_text(len(alone), len(held_out))}, right {rate_text(sum(s.right for s in alone), len(alone))}")
        for s in alone:
            if not s.right:
                out(f"    wrong: {s.item.id} {s.item.say!r} gold {s.item.action}, taught {s.action} ({s.similarity:.3f})")
        for label, taught in (("without taught phrases", None), ("with them", both)):
            self._report(f"Held out, the whole matcher {label}",
                         evaluation.summary(evaluation.score_set(held_out, taught=taught, **common),
                                            pack.threshold, pack.weak_threshold))

    def _report(self, label: str, s) -> None:
        out = self.stdout.write
        out(f"\n{label}: threshold {s.threshold:g} (weak grounding: {s.weak_threshold:g}), agreement floor as in the pack")
        out(f"  answered by the matcher: {rate_text(s.answered, s.total)}")
        out(f"  its precision, action:      {rate_text(s.action_ok, s.answered)}")
        out(f"  its precision, action+item: {rate_text(s.item_ok, s.answered)}")
        for source, (n, ok) in s.by_source.items():
            out(f"  {source:<10} answered {n}, right {ok}")
        if s.confusion:
            out("  wrong answers (gold -> matcher: count):")
            out("\n".join(f"    {gold} -> {got}: {count}" for (gold, got), count in s.confusion))
            for score in s.wrong:
                out(f"    {score.item.id}: {score.item.say!r} gold {score.item.action}, matcher {score.action} "
                    f"({score.match.source}{', weak' if score.match.weak else ''}, {score.confidence:.2f})")
