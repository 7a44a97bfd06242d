from django.apps import AppConfig


class AlexaConfig(AppConfig):
    name = "alexa"
    verbose_name = "Alexa (a channel)"
