from django.urls import path

from dashboard.views import vendor, vendor_editor, vendor_evals, vendor_packs

app_name = "vendor"

urlpatterns = [
    path("", vendor.types, name="types"),
    path("packs/", vendor_packs.packs, name="packs"),
    path("packs/new", vendor_editor.new, name="new"),
    path("packs/<slug:slug>/<int:version>/edit", vendor_editor.edit, name="edit"),
    path("packs/<slug:slug>/<int:version>/publish", vendor_packs.publish, name="publish"),
    path("packs/<slug:slug>/<int:version>/", vendor_packs.preview, name="preview"),
    path("packs/<slug:slug>/<int:version>/eval", vendor_evals.start, name="eval-start"),
    path("packs/evaluations/<str:job>/", vendor_evals.status, name="eval"),
    path("packs/evaluations/<str:job>/progress", vendor_evals.progress, name="eval-progress"),
    path("<slug:slug>/", vendor.type_detail, name="type"),
]
