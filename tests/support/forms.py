"""A folder's files as the `multipart/form-data` body a browser sends of a picked folder:
one part each, its `filename` its path, escaped as the HTML standard says (`"` as `%22`,
nothing else): urllib3's form encoder (urllib3 comes with requests, which
check-jsonschema and schemathesis need)."""

from collections.abc import Mapping

from urllib3 import encode_multipart_formdata


def folder_form(files: Mapping[str, bytes]) -> tuple[bytes, str]:
    """The body and its whole Content-Type header (the boundary in it)."""
    return encode_multipart_formdata([("files", (path, data)) for path, data in files.items()])
