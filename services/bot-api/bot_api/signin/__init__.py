"""Sign-in to the console with OpenID Connect (docs/teams.md "Sign-in")."""
