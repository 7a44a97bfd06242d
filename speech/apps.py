from django.apps import AppConfig


class SpeechConfig(AppConfig):
    name = "speech"
    verbose_name = "Speech (recognition, voice activity)"

    def ready(self) -> None:
        from speech import checks  # noqa: F401 - registers the system checks
