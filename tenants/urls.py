from django.urls import path

from tenants import people_views, views

app_name = "tenants"

urlpatterns = [
    path("", views.home, name="home"),
    path("stores/new/", views.store_new, name="store-new"),
    path("stores/switch/", views.store_switch, name="store-switch"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_view, name="token-revoke"),
    path("members/", people_views.members_page, name="members"),
    path("members/<int:membership_id>/", people_views.member_change, name="member-change"),
    path("members/invitations/<int:invitation_id>/revoke", people_views.invitation_revoke, name="invitation-revoke"),
    path("invitations/<str:secret>/", people_views.invitation_accept, name="invitation"),
    path("settings/", people_views.settings_page, name="settings"),
    path("settings/recipients", people_views.recipient_change, name="recipients"),
    path("reports/confirm/<str:secret>/", people_views.recipient_confirm, name="recipient-confirm"),
]
