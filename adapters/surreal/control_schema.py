"""DDL of the control plane and of the audit log, idempotent (``IF NOT EXISTS``).

Why the rules live in the schema: uniqueness enforced by UNIQUE indexes holds
even when two processes write through one server at once, where a
read-then-write check in Python would let both win. Tables are SCHEMAFULL, so
a field missing here would be dropped silently; the contract suites
round-trip every field to catch that.

Why ``space_code``: a keyless scope (organization, public) stores no key, and
an index over a missing value would not tell two keyless spaces apart, so the
(scope, key) pair is indexed as one string (see ``codec.space_code``).
"""

__all__ = ["AUDIT_SCHEMA", "CONTROL_NAMESPACE", "CONTROL_SCHEMA"]

#: the one namespace of the control plane (organisations, principals, keys, spaces ...)
CONTROL_NAMESPACE = "tessera_control"

CONTROL_SCHEMA = """
DEFINE TABLE IF NOT EXISTS organization SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS org_id ON organization TYPE string;
DEFINE FIELD IF NOT EXISTS name ON organization TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON organization TYPE datetime;
DEFINE INDEX IF NOT EXISTS organization_name ON organization FIELDS name UNIQUE;

DEFINE TABLE IF NOT EXISTS principal SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS principal_id ON principal TYPE string;
DEFINE FIELD IF NOT EXISTS org_id ON principal TYPE string;
DEFINE FIELD IF NOT EXISTS name ON principal TYPE string;
DEFINE FIELD IF NOT EXISTS kind ON principal TYPE string;
DEFINE FIELD IF NOT EXISTS acting_for ON principal TYPE option<string>;
DEFINE FIELD IF NOT EXISTS org_role ON principal TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON principal TYPE datetime;
DEFINE INDEX IF NOT EXISTS principal_name ON principal FIELDS org_id, name UNIQUE;

DEFINE TABLE IF NOT EXISTS api_key SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS key_id ON api_key TYPE string;
DEFINE FIELD IF NOT EXISTS org_id ON api_key TYPE string;
DEFINE FIELD IF NOT EXISTS principal_id ON api_key TYPE string;
DEFINE FIELD IF NOT EXISTS secret_hash ON api_key TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON api_key TYPE datetime;
DEFINE FIELD IF NOT EXISTS revoked_at ON api_key TYPE option<datetime>;
DEFINE INDEX IF NOT EXISTS api_key_org ON api_key FIELDS org_id;

DEFINE TABLE IF NOT EXISTS space SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS space_id ON space TYPE string;
DEFINE FIELD IF NOT EXISTS org_id ON space TYPE string;
DEFINE FIELD IF NOT EXISTS scope ON space TYPE string;
DEFINE FIELD IF NOT EXISTS scope_key ON space TYPE option<string>;
DEFINE FIELD IF NOT EXISTS space_code ON space TYPE string;
DEFINE FIELD IF NOT EXISTS name ON space TYPE string;
DEFINE FIELD IF NOT EXISTS writes_enabled ON space TYPE bool;
DEFINE FIELD IF NOT EXISTS created_by ON space TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON space TYPE datetime;
DEFINE INDEX IF NOT EXISTS space_ref ON space FIELDS org_id, space_code UNIQUE;

DEFINE TABLE IF NOT EXISTS membership SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS org_id ON membership TYPE string;
DEFINE FIELD IF NOT EXISTS space_id ON membership TYPE string;
DEFINE FIELD IF NOT EXISTS principal_id ON membership TYPE string;
DEFINE FIELD IF NOT EXISTS role ON membership TYPE string;
DEFINE FIELD IF NOT EXISTS added_at ON membership TYPE datetime;
DEFINE INDEX IF NOT EXISTS membership_one ON membership
    FIELDS org_id, space_id, principal_id UNIQUE;
DEFINE INDEX IF NOT EXISTS membership_principal ON membership FIELDS org_id, principal_id;

DEFINE TABLE IF NOT EXISTS delegation SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS delegation_id ON delegation TYPE string;
DEFINE FIELD IF NOT EXISTS org_id ON delegation TYPE string;
DEFINE FIELD IF NOT EXISTS user_id ON delegation TYPE string;
DEFINE FIELD IF NOT EXISTS agent_id ON delegation TYPE string;
DEFINE FIELD IF NOT EXISTS expires_at ON delegation TYPE datetime;
DEFINE FIELD IF NOT EXISTS created_at ON delegation TYPE datetime;
DEFINE FIELD IF NOT EXISTS revoked_at ON delegation TYPE option<datetime>;
DEFINE INDEX IF NOT EXISTS delegation_agent ON delegation FIELDS org_id, agent_id;
"""

#: per organisation namespace; ``counts``/``hashes`` are FLEXIBLE so their keys are kept
AUDIT_SCHEMA = """
DEFINE TABLE IF NOT EXISTS audit_receipt SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS receipt_id ON audit_receipt TYPE string;
DEFINE FIELD IF NOT EXISTS org_id ON audit_receipt TYPE string;
DEFINE FIELD IF NOT EXISTS at ON audit_receipt TYPE datetime;
DEFINE FIELD IF NOT EXISTS actor_id ON audit_receipt TYPE option<string>;
DEFINE FIELD IF NOT EXISTS agent_id ON audit_receipt TYPE option<string>;
DEFINE FIELD IF NOT EXISTS surface ON audit_receipt TYPE string;
DEFINE FIELD IF NOT EXISTS action ON audit_receipt TYPE string;
DEFINE FIELD IF NOT EXISTS allowed ON audit_receipt TYPE bool;
DEFINE FIELD IF NOT EXISTS reason ON audit_receipt TYPE string;
DEFINE FIELD IF NOT EXISTS scope ON audit_receipt TYPE option<string>;
DEFINE FIELD IF NOT EXISTS scope_key ON audit_receipt TYPE option<string>;
DEFINE FIELD IF NOT EXISTS ids ON audit_receipt TYPE array<string>;
DEFINE FIELD IF NOT EXISTS counts ON audit_receipt TYPE object FLEXIBLE;
DEFINE FIELD IF NOT EXISTS hashes ON audit_receipt TYPE object FLEXIBLE;
DEFINE INDEX IF NOT EXISTS audit_receipt_at ON audit_receipt FIELDS at;
"""
