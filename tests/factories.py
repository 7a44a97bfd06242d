"""factory_boy factories that keep rows consistent: a line's product belongs to its store."""

from __future__ import annotations

from decimal import Decimal

import factory
from django.contrib.auth import get_user_model

from ledger.models import Product
from tenants.models import BusinessType, Membership, Store


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    @factory.post_generation
    def password(user, create, extracted, **kwargs):
        user.set_password(extracted or "correct horse battery staple")
        if create:
            user.save(update_fields=["password"])

    @factory.post_generation
    def platform_admin(user, create, extracted, **kwargs):
        """``UserFactory(platform_admin=True)``: holds identity.platform_admin (not is_staff)."""
        if create and extracted:
            _grant(user, "platform_admin")

    @factory.post_generation
    def vendor(user, create, extracted, **kwargs):
        """``UserFactory(vendor=True)``: holds identity.vendor."""
        if create and extracted:
            _grant(user, "vendor")


def _grant(user, codename: str) -> None:
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(content_type__app_label="identity", codename=codename))


class StoreFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Store

    slug = factory.Sequence(lambda n: f"store-{n}")
    name = factory.Sequence(lambda n: f"Store {n}")
    business_type = factory.LazyFunction(lambda: BusinessType.objects.get(slug="grocery"))
    pack_version = factory.LazyAttribute(
        lambda store: store.business_type.versions.filter(status="published").order_by("-version").first()
    )
    timezone = "America/Chicago"
    currency = "USD"
    owner_name = "Raj"


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    store = factory.SubFactory(StoreFactory)
    role = Membership.Role.OWNER


class ProductFactory(factory.django.DjangoModelFactory):
    """A product row made directly, for read-side tests; writes in tests go through ledger.services."""

    class Meta:
        model = Product

    store = factory.SubFactory(StoreFactory)
    sku = factory.Sequence(lambda n: f"F-{n:05d}")
    name = factory.Sequence(lambda n: f"Product {n}")
    aliases = factory.LazyFunction(list)
    unit = "1 kg bag"
    category = "Staples"
    location = "Aisle 1, top shelf"
    stock = 10
    par_level = 20
    reorder_point = 5
    price = Decimal("4.99")
    unit_cost = Decimal("2.50")
    supplier = "Amazon Business"


def verified(user):
    """The user's address as allauth records a confirmed one (sign-up verifies it before the store
    sends email, and sign-in needs it)."""
    from allauth.account.models import EmailAddress

    EmailAddress.objects.update_or_create(user=user, email=user.email, defaults={"verified": True, "primary": True})
    return user
