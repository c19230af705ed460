import { SearchAttributeType, defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';

/**
 * The custom search attributes every run the service starts carries, so an operator finds a client's runs in the
 * Temporal UI (`LeadClientId="…"`): registered by the service at start where Temporal lets it, else by the operator
 * (docs/operations.md, "Finding runs"). Child workflows inherit their parent's (workflows/interceptors.ts).
 */
export const LEAD_CLIENT_ID = defineSearchAttributeKey('LeadClientId', SearchAttributeType.KEYWORD);
export const LEAD_JOB_TYPE = defineSearchAttributeKey('LeadJobType', SearchAttributeType.KEYWORD);
export const LEAD_BRAND_ID = defineSearchAttributeKey('LeadBrandId', SearchAttributeType.KEYWORD_LIST);
export const LEAD_SEARCH_ATTRIBUTES = [LEAD_CLIENT_ID, LEAD_JOB_TYPE, LEAD_BRAND_ID] as const;

/** Whom and what a run is for. */
export interface RunSubject {
  clientId: string;
  jobType?: string;
  brandIds?: readonly (string | number)[];
}

/** A run's search attributes, for its start options' `typedSearchAttributes`. */
export function searchAttributesOf(subject: RunSubject): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [{ key: LEAD_CLIENT_ID, value: subject.clientId }];
  if (subject.jobType) pairs.push({ key: LEAD_JOB_TYPE, value: subject.jobType });
  if (subject.brandIds?.length) pairs.push({ key: LEAD_BRAND_ID, value: subject.brandIds.map(String) });
  return pairs;
}
