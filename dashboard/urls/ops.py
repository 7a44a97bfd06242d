from django.urls import path

from dashboard.views import compare, ops, regressions

app_name = "ops"

urlpatterns = [
    path("", ops.stores, name="stores"),
    path("audit/", ops.audit, name="audit"),
    path("audit/turns/<int:turn_id>/", ops.turn_detail, name="turn"),
    path("audit/turns/<int:turn_id>/regression/", regressions.turn_mark, name="turn-mark"),
    path("audit/regressions/", regressions.regressions, name="regressions"),
    path("audit/regressions/<int:case_id>/delete/", regressions.regression_delete, name="regression-delete"),
    path("audit/calls/", ops.calls, name="calls"),
    path("audit/calls/<int:record_id>/", ops.record_detail, name="record"),
    path("metrics/", ops.metrics_page, name="metrics"),
    path("metrics/compare/", compare.compare, name="compare"),
    path("metrics/runs/<int:run_id>/", ops.run_detail, name="run"),
    path("metrics/bench/", ops.bench_start, name="bench-start"),
    path("metrics/bench/<str:job>/progress.json", ops.bench_progress, name="bench-progress"),
]
