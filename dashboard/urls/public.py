from django.urls import path

from dashboard.views import public

app_name = "public"

urlpatterns = [
    path("<slug:store_slug>/find", public.shelf_finder, name="shelf-finder"),
]
