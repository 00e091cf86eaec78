# The shared set-up of every walkthrough in the docs. From the repository's root, with the service running
# (`npm start`), in bash:   source docs/env.sh
#
# Reads:  API        the service's base URL (default http://127.0.0.1:8080, where `npm start` listens)
#         BOOTSTRAP  the credentials file of the first start (default .data/bootstrap.json)
# Sets:   CLIENT_ID, CLIENT_SECRET   the bootstrap service account (every scope)
#         PAT                        the operator user's personal access token
#         TOKEN                      an access token of the bootstrap service account (15 minutes)
# Defines:
#   api METHOD PATH [JSON]              curl "$API$PATH" with "Authorization: Bearer ${AUTH:-$TOKEN}" and the JSON
#                                       body; prints the answer; fails (non-zero) on an HTTP status of 400 or more
#   api_expect STATUS METHOD PATH [JSON]  the same, but the answer must have exactly that status (for refusals)
#   new_environment NAME                a tenant named NAME with a project; sets TENANT, PROJECT, ENVIRONMENT
#                                       (the project's development environment) and E, its path:
#                                       /v1/tenants/$TENANT/environments/$ENVIRONMENT
#   eventually 'COMMANDS'               runs the commands until they succeed (every 0.2 s, for at most 15 s) and
#                                       prints their output: for what a durable process does after a request
#   sign_in URL USERNAME PASSWORD       what a browser does with an authorization URL of an environment's provider:
#                                       follows it to the identifier page, then the password page, signs in, allows on the consent page (each
#                                       form with its CSRF token, cookies kept); prints the URL it is sent back to
#                                       (the client's redirect URI with a code, or an error)
# Needs curl and jq.

API=${API:-http://127.0.0.1:8080}
BOOTSTRAP=${BOOTSTRAP:-.data/bootstrap.json}
CLIENT_ID=$(jq -r .clientId "$BOOTSTRAP")
CLIENT_SECRET=$(jq -r .clientSecret "$BOOTSTRAP")
PAT=$(jq -r .personalAccessToken "$BOOTSTRAP")
TOKEN=$(curl -sSf -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials "$API/v1/oauth/token" | jq -r .access_token)

# One request; prints the body, then returns non-zero when the status is not the expected one.
_request() {
  local expect=$1 method=$2 path=$3 body=${4-}
  local args=(-sS -X "$method" -H "Authorization: Bearer ${AUTH:-$TOKEN}" -w '\n%{http_code}')
  if [ -n "$body" ]; then args+=(-H 'Content-Type: application/json' --data-binary "$body"); fi
  local out status
  out=$(curl "${args[@]}" "$API$path") || return 1
  status=${out##*$'\n'}
  out=${out%$'\n'*}
  printf '%s\n' "$out"
  if [ "$expect" = ok ] && [ "$status" -lt 400 ]; then return 0; fi
  if [ "$expect" = "$status" ]; then return 0; fi
  echo "$method $path answered HTTP $status (expected ${expect/ok/a success})" >&2
  return 1
}
api() { _request ok "$@"; }
api_expect() { _request "$@"; }

new_environment() {
  TENANT=$(api POST /v1/tenants "{\"name\":\"$1\"}" | jq -r .tenant.id)
  local project
  project=$(api POST "/v1/tenants/$TENANT/projects" '{"name":"App"}')
  PROJECT=$(jq -r .project.id <<<"$project")
  ENVIRONMENT=$(jq -r .project.defaultEnvironmentId <<<"$project")
  E=/v1/tenants/$TENANT/environments/$ENVIRONMENT
}

eventually() {
  local i out
  for i in $(seq 1 75); do
    if out=$(eval "$1" 2>/dev/null); then
      if [ -n "$out" ]; then printf '%s\n' "$out"; fi
      return 0
    fi
    sleep 0.2
  done
  eval "$1"
}

sign_in() {
  local jar next=$1 out page form csrf logins=0
  local -a fields=()
  jar=$(mktemp)
  for _ in $(seq 1 12); do
    if [[ $next != "$API/v1/oidc/"* ]]; then
      rm -f "$jar"
      printf '%s\n' "$next"
      return 0
    fi
    out=$(curl -sS -c "$jar" -b "$jar" -w '\n@redirect@%{redirect_url}' "${fields[@]}" "$next")
    fields=()
    if [ -n "${out##*@redirect@}" ]; then
      next=${out##*@redirect@}
      continue
    fi
    page=${out%@redirect@*}
    csrf=$(grep -o 'name="csrf" value="[^"]*"' <<<"$page" | head -1 | cut -d'"' -f4)
    form=$(grep -o '<form method="post" action="[^"]*"' <<<"$page" | head -1 | cut -d'"' -f4 | sed 's/&amp;/\&/g')
    if [ -z "$form" ]; then break; fi
    fields=(--data-urlencode "csrf=$csrf")
    if grep -q 'name="password"' <<<"$page"; then
      if [ "$logins" -gt 0 ]; then break; fi # the password page again: the sign-in was refused
      logins=1
      fields+=(--data-urlencode "identifier=$2" --data-urlencode "password=$3")
    elif grep -q 'name="identifier"' <<<"$page"; then
      fields+=(--data-urlencode "identifier=$2")
    fi
    next=$API$form
  done
  rm -f "$jar"
  echo "sign_in: the sign-in did not complete at $next" >&2
  return 1
}
