# Shell completion: the installed bash script (scripts/completion/msprof.bash)
# sourced and its function called as bash's programmable completion calls it,
# COMP_WORDS split at '=' as bash splits them, COMPREPLY checked: option
# names (every one --help lists), option values from msprof's tables (each
# one msprof then accepts), directories for --output and -dir, msprof.py's
# forms, the application's words left to bash.
. "$SRCDIR/tests/integration/lib.sh"

W=$T_WORK
. "$SRCDIR/scripts/completion/msprof.bash"
t_check "the script registers its function for msprof" sh -c "complete -p msprof 2>/dev/null | grep -q _msprof_complete || bash -c '. \"$SRCDIR/scripts/completion/msprof.bash\"; complete -p msprof' | grep -q _msprof_complete"

# comp WORD...: complete the last word of "msprof WORD..." (split as bash
# splits it); the candidates in REPLY_LIST, one per line.
comp() {
	COMP_WORDS=("$MSPROF" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_msprof_complete
	REPLY_LIST=$(printf '%s\n' "${COMPREPLY[@]}")
}
# has "what" CANDIDATE / hasnt "what" CANDIDATE: on the list of the last comp
has() { if grep -qxF -- "$2" <<<"$REPLY_LIST"; then t_ok "$1"; else t_fail "$1: '$2' not in: $(echo $REPLY_LIST)"; fi; }
hasnt() { if grep -qxF -- "$2" <<<"$REPLY_LIST"; then t_fail "$1: '$2' offered"; else t_ok "$1"; fi; }
only() { t_eq "$1" "$(echo $REPLY_LIST)" "$2"; }

# --- option names -----------------------------------------------------------
comp --host-s
has "--host-s: --host-sys=" --host-sys=
has "--host-s: --host-sys-usage=" --host-sys-usage=
hasnt "--host-s: no other option" --output=
comp --vers
only "a flag completes without '='" --version
comp --
t_offers_every_option "$REPLY_LIST"
comp --ascend
has "msprof's NPU options too" --ascendcl=

# --- values: bash splits --opt=value into "--opt" "=" "value" -------------------
comp --host-sys = cpu,m
only "a list: the rest of the word" "cpu,mem"
comp --host-sys = cpu,
has "a list: every choice not given yet" "cpu,osrt"
hasnt "a list: not what it holds" "cpu,cpu"
comp --task-time =
has "--task-time=: l0" l0
has "--task-time=: off" off
hasnt "--task-time=: not l3, which is refused" l3
comp --type ""
only "--type VALUE: the next word" "text db"
comp --dynamic = o
only "on|off" "on off"
comp --hccl =
only "an NPU option's on|off" "on off"
comp --summary-format = j
only "--summary-format=j" "json"
comp --rule = communication,
only "--rule: a list" "communication,communication_matrix"

# every value offered is one msprof's parser takes (--version: nothing runs)
bad=0 n=0
while read -r opt; do
	while read -r v; do
		case $v in "" | @*) continue ;; esac   # paths and commands: bash's
		n=$((n + 1))
		if ! err=$("$MSPROF" --output="$W/o" "${opt}$v" --version 2>&1 >/dev/null); then
			bad=$((bad + 1))
			echo "# ${opt}$v refused: $err" >&2
		fi
	done < <("$MSPROF" __complete "$opt")
done < <(comp --; grep '=$' <<<"$REPLY_LIST")
if [ "$bad" -eq 0 ] && [ "$n" -gt 40 ]; then t_ok "each of the $n values offered is accepted by msprof"; else t_fail "$bad of $n values offered are refused"; fi

# --- directories -----------------------------------------------------------------
mkdir -p "$W/res/PROF_000001_20260101000000000_00000001ABCDEFGH" "$W/res/other"
: >"$W/res/a-file"
comp --export = on --output = "$W/res/"
has "--output with --export: the PROF dir" "$W/res/PROF_000001_20260101000000000_00000001ABCDEFGH"
hasnt "--output: no file" "$W/res/a-file"
comp --output "$W/res/P"
only "--output DIR: the next word" "$W/res/PROF_000001_20260101000000000_00000001ABCDEFGH"
comp export timeline -dir "$W/res/P"
only "msprof export timeline -dir: the PROF dir" "$W/res/PROF_000001_20260101000000000_00000001ABCDEFGH"
comp export summary -dir = "$W/res/P"
only "-dir=: the PROF dir" "$W/res/PROF_000001_20260101000000000_00000001ABCDEFGH"

# --- msprof.py's forms and the application --------------------------------------
comp ex
has "the first word: msprof.py's export" export
comp export ""
has "export: timeline" timeline
has "export: summary" summary
has "export: db" db
comp import -d
only "import -d" "-dir"
comp --output = "$W/o" "$W/res/a-f"
only "the application: a path" "$W/res/a-file"
comp --output = "$W/o" sleep --fo
t_eq "after the application: its own words, not msprof's options" "$REPLY_LIST" ""
comp --output = "$W/o" sh "$W/res/a-"
only "after the application: files" "$W/res/a-file"

t_done
