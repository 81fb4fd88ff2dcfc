#!/usr/bin/env bash
# Job-started hook for the self-hosted GPU runner (ACTIONS_RUNNER_HOOK_JOB_STARTED).
# The runner runs it before every job; a non-zero exit fails the job before any of its
# steps run. Only the scheduled and the hand-started benchmark may use this machine, and
# only from the default branch of this repository: anything else, above all a pull
# request, is refused, even if a workflow asks for this runner's labels by mistake.
set -euo pipefail

readonly ALLOWED_REPOSITORY="${GPU_RUNNER_ALLOWED_REPOSITORY:-tf-retracing-guide/tf-retracing-guide}"
readonly ALLOWED_REF="refs/heads/main"

refuse() {
    echo "job-started hook: refusing this job: $1" >&2
    exit 1
}

event="${GITHUB_EVENT_NAME:-}"
case "$event" in
    schedule | workflow_dispatch) ;;
    "") refuse "GITHUB_EVENT_NAME is not set" ;;
    *) refuse "event '$event' may not run on the GPU runner (only schedule, workflow_dispatch)" ;;
esac

if [[ "${GITHUB_REPOSITORY:-}" != "$ALLOWED_REPOSITORY" ]]; then
    refuse "repository '${GITHUB_REPOSITORY:-}' is not $ALLOWED_REPOSITORY"
fi
if [[ "${GITHUB_REF:-}" != "$ALLOWED_REF" ]]; then
    refuse "ref '${GITHUB_REF:-}' is not $ALLOWED_REF"
fi

echo "job-started hook: accepted $event of $GITHUB_REPOSITORY at $GITHUB_REF"
