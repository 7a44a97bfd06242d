from django.urls import path

from packs.views import pack_schema_view

urlpatterns = [path("schema.json", pack_schema_view, name="pack-schema")]
