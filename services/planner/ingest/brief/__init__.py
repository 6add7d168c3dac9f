"""The brief compiler: one sentence of brief → the constraint ledger, with provenance."""
