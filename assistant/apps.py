from django.apps import AppConfig


class AssistantConfig(AppConfig):
    name = "assistant"
    verbose_name = "Assistant"
