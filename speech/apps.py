from django.apps import AppConfig


class SpeechConfig(AppConfig):
    name = "speech"
    verbose_name = "Speech (recognition, voice activity)"
