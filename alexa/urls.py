from django.urls import path

from alexa import views

app_name = "alexa"

urlpatterns = [
    path("", views.skill, name="skill"),
]
