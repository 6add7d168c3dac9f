"""The verifier's error tree: stable codes, the offending field, translated once by the app."""

from __future__ import annotations

from services.common.errors import RefineryError


class VerifierError(RefineryError):
    status_code = 422
    code = "invalid_input"


class UnknownReference(VerifierError):
    """A timeline or patch names a clip or music track the task does not have."""

    code = "unknown_reference"


class PatchRejected(VerifierError):
    """One op of a patch cannot apply; the whole patch is rejected and nothing changes."""

    code = "patch_rejected"

    def __init__(self, op_index: int, reason: str, message: str, *, field: str | None = None):
        param = f"patch.ops[{op_index}]" + (f".{field}" if field else "")
        super().__init__(
            f"op {op_index}: {message}",
            param=param,
            context={"op_index": op_index, "reason": reason},
        )
        self.op_index = op_index
        self.reason = reason
