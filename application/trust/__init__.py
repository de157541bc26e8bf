"""Who may do what: access, the policy guard, the audit trail, keys and administration."""
