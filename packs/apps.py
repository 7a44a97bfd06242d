from django.apps import AppConfig


class PacksConfig(AppConfig):
    name = "packs"
    verbose_name = "Business-type packs"
