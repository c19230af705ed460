#!/bin/sh
# The service's namespace, with finished runs kept 7 days so operators find them in the Temporal UI. Idempotent;
# the search attributes the service sets on its workflows are registered here too.
set -eu
NS="${TEMPORAL_NAMESPACE:-default}"
until temporal operator cluster health --address temporal:7233 | grep -q SERVING; do sleep 2; done
temporal operator namespace describe -n "$NS" --address temporal:7233 >/dev/null 2>&1 ||
  temporal operator namespace create -n "$NS" --retention 7d --address temporal:7233
temporal operator namespace update -n "$NS" --retention 7d --address temporal:7233
# workflows/search-attributes.ts; an attribute that exists already is left as it is.
for attr in LeadClientId=Keyword LeadJobType=Keyword LeadBrandId=KeywordList; do
  temporal operator search-attribute list -n "$NS" --address temporal:7233 | grep -q "${attr%=*}" ||
    temporal operator search-attribute create -n "$NS" --name "${attr%=*}" --type "${attr#*=}" --address temporal:7233
done
