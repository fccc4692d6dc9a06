"""The envelopes the connection and channel APIs answer a write with."""

from integrations_api.common.views import STATUS_FIELD
from shared.envelope_schemas import created_schema, success_schema

SuccessSchema = success_schema(STATUS_FIELD)
CreatedSchema = created_schema(STATUS_FIELD)
