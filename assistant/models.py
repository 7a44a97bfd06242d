"""Conversation state and benchmark results."""

from __future__ import annotations

from django.db import models

from tenants.models import Store


class Conversation(models.Model):
    """What a conversation remembers between turns: the last product and action, the draft on offer.

    A draft counts as "just offered" only for the turn right after the one that offered it
    (``draft_offered_turn``); a later "yes" does not confirm it.
    """

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    mode = models.CharField(max_length=20)
    turns = models.PositiveIntegerField(default=0)
    last_product = models.CharField(max_length=120, blank=True)
    last_action = models.CharField(max_length=40, blank=True)
    last_topic = models.CharField(max_length=40, blank=True)
    played_guides = models.JSONField(default=list, blank=True)
    pending_draft_id = models.BigIntegerField(null=True, blank=True)
    draft_offered_turn = models.PositiveIntegerField(null=True, blank=True)
    # A spoken request the hearing was unsure of, asked back ("Did you mean atta?"): the owner's
    # yes on the next turn runs these words; anything else drops them.
    pending_hearing = models.CharField(max_length=500, blank=True)
    hearing_offered_turn = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["store", "key"], name="conversation_unique_store_key")]
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return f"Conversation {self.key} ({self.mode}, {self.turns} turns)"


class BenchmarkRun(models.Model):
    """One run of a benchmark suite in one mode."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    suite = models.CharField(max_length=80)
    mode = models.CharField(max_length=20)
    variant = models.CharField(max_length=40, blank=True)
    run_number = models.PositiveIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    turns_total = models.PositiveIntegerField(default=0)
    turns_passed = models.PositiveIntegerField(default=0)
    median_ms = models.FloatField(null=True, blank=True)
    p90_ms = models.FloatField(null=True, blank=True)
    model = models.CharField(max_length=200, blank=True)
    store_slug = models.SlugField(max_length=50, blank=True, help_text="The throwaway demo store the run used.")
    settings = models.JSONField(
        default=dict, blank=True, help_text="Backends and models per role, warm-up, suite file, limit."
    )
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.suite} in {self.mode} mode, run {self.run_number} ({self.status})"

    @property
    def pass_rate(self) -> float:
        return self.turns_passed / self.turns_total if self.turns_total else 0.0


class BenchmarkTurn(models.Model):
    """One turn of a benchmark run: whether it passed, which checks failed, and where the time went."""

    run = models.ForeignKey(BenchmarkRun, on_delete=models.CASCADE, related_name="results")
    index = models.PositiveIntegerField()
    category = models.CharField(max_length=40)
    say = models.TextField()
    passed = models.BooleanField()
    failures = models.JSONField(default=list)
    latency_ms = models.FloatField(help_text="Wall-clock time of the whole turn, as the caller saw it.")
    answer = models.JSONField(default=dict)
    stages = models.JSONField(default=dict, blank=True, help_text="Milliseconds per pipeline stage.")
    model_calls = models.JSONField(
        default=list, blank=True, help_text="The turn's model calls from the audit: role, purpose, ms."
    )

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="benchmark_turn_unique_run_index")]

    def __str__(self) -> str:
        return f"Turn {self.index} of benchmark run {self.run_id}"


class RegressionCase(models.Model):
    """A live turn a platform admin marked as a regression case: its words, what it must do, and the
    catalog state it needs, captured so it replays on a fresh store of its own (store-independent).

    No store, user, credential or conversation key is kept: ``source_turn`` is the audit turn's id
    (for the admin's own look-up, not a key; the turn may be gone), ``context`` the earlier turns'
    words when the whole conversation was marked, ``expect`` the bench checks
    (``lab.bench.checks``), ``store`` the business type, time zone, currency and the products the
    turn read or wrote with their counts, prices and locations as the turn saw them.
    """

    title = models.CharField(max_length=120)
    say = models.TextField(help_text="The turn's words, as heard.")
    context = models.JSONField(default=list, blank=True, help_text="Earlier turns' words, replayed first, unchecked.")
    category = models.CharField(max_length=40, default="regression")
    expect = models.JSONField(help_text="The bench checks the replayed turn must pass.")
    store = models.JSONField(help_text="Business type, time zone, currency and the captured products.")
    mode = models.CharField(max_length=20, help_text="The mode the live turn ran in.")
    note = models.TextField(blank=True, help_text="Why it was marked: what went wrong.")
    source_turn = models.PositiveBigIntegerField(null=True, blank=True, help_text="The audit turn's id, when marked.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Regression case {self.pk}: {self.title}"

    def as_suite_case(self) -> dict:
        """The case as one entry of a captured suite's ``cases`` (``lab.bench.suite``)."""
        return {
            "id": f"case-{self.pk}", "say": self.say, "context": list(self.context), "category": self.category,
            "expect": dict(self.expect), "store": dict(self.store), "mode": self.mode,
            **({"note": self.note} if self.note else {}),
        }


class TaughtPhrase(models.Model):
    """A request the store's owner taught the fast path: next time, words like these are this action.

    Made from a turn in the assistant's history (``assistant.matcher.taught.teach``): the words as
    said, the form the matcher compares (``head_text``: normalised, product words masked) and the
    router action the owner chose. Only this store's matcher reads it (row-level security fences it
    like every table with a store).
    """

    store = models.ForeignKey(Store, on_delete=models.CASCADE, related_name="+")
    said = models.CharField(max_length=500, help_text="The owner's words, as the turn heard them.")
    text = models.CharField(max_length=500, help_text="The words as the matcher compares them (products masked).")
    action = models.CharField(max_length=40, help_text="The router action these words mean in this store.")
    source_turn = models.PositiveBigIntegerField(null=True, blank=True, help_text="The audit turn it was taught from.")
    taught_by = models.CharField(max_length=120, help_text="Who taught it (user:<id>).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["store", "text"], name="taught_phrase_unique_store_text")]

    def __str__(self) -> str:
        return f"{self.said!r} -> {self.action}"
