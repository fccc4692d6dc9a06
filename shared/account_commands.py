"""`accounts create|rotate|limits`: an account, its two tokens and its own limits from
the command line, each change recorded in the audit log before it is made
(shared/command_audit.py). Tokens are never in a record: a summary names them only."""

from bson import ObjectId

from shared.auditing import summary_of
from shared.auth import ACCOUNT_SETTINGS, AccountRepository, IssuedLimits, IssuedTokens
from shared.command_audit import CommandAudit

TOKENS = "developerToken; publicKey"


async def create(accounts: AccountRepository, audit: CommandAudit, name: str) -> IssuedTokens:
    """A new account and its tokens. Its record names the account's id, which does not
    exist before the account does: so the id is made here, the record written with it,
    and only then the account created with that id. A record that cannot be written
    leaves no account; a name already taken withdraws the record (nothing changed)."""
    account_id = ObjectId()
    summary = f"{summary_of(('name',), {'name': name}, {})}; {TOKENS}"
    return await audit.change(
        str(account_id),
        "account.create",
        str(account_id),
        summary,
        lambda: accounts.create(name, account_id),
    )


async def rotate(
    accounts: AccountRepository, audit: CommandAudit, account_id: str, name: str
) -> IssuedTokens:
    return await audit.change(
        account_id, "tokens.rotate", account_id, TOKENS, lambda: accounts.rotate(name)
    )


async def limits(
    accounts: AccountRepository,
    audit: CommandAudit,
    account_id: str,
    name: str,
    changes: dict[str, float | None],
) -> IssuedLimits:
    """Set the account's own values (`changes`, by Config field name; None: back to the
    deployment's), recorded as `QUOTA_STORIES: null -> 3` (null: the deployment's value);
    with no change, only read them, and record nothing."""
    if not changes:
        return await accounts.set_limits(name, {})
    own = dict((await accounts.limits(account_id)).values)
    after = {field.upper(): value for field, value in changes.items()}
    before = {field.upper(): own.get(field) for field in changes}
    return await audit.change(
        account_id,
        "limits.update",
        account_id,
        summary_of(ACCOUNT_SETTINGS, after, before),
        lambda: accounts.set_limits(name, changes),
    )
