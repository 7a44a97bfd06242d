from django.urls import path

from assistant.alexa import views

app_name = "alexa"

urlpatterns = [
    path("", views.skill, name="skill"),
]
