def test_the_grocery_business_type_is_installed(db):
    from tenants.models import BusinessType

    assert BusinessType.objects.filter(slug="grocery").exists()
