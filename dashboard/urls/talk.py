from django.urls import path

from dashboard.views import talk

app_name = "talk"

urlpatterns = [path("", talk.talk, name="talk")]
