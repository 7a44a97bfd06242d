#!/bin/sh
# First start of the database volume only (docker-entrypoint-initdb.d), as the image's superuser.
# The application logs in as "shelfwise": not a superuser, but BYPASSRLS (migrations and platform
# maintenance run as it) and CREATEROLE (migrate creates the NOLOGIN role shelfwise_app). Every
# request, turn and task then runs as shelfwise_app, under row-level security (tenants/rls.py).
set -eu
password="$(cat /run/secrets/db_password)"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    --set=password="$password" <<'SQL'
CREATE ROLE shelfwise LOGIN NOSUPERUSER NOCREATEDB CREATEROLE BYPASSRLS PASSWORD :'password';
CREATE DATABASE shelfwise OWNER shelfwise;
SQL
