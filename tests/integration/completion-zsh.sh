# Shell completion in zsh: scripts/completion/_msprof found on $fpath by
# compinit, as an installed one is, and run by zsh's own completion in an
# interactive zsh on a pseudo-terminal (the zsh/zpty module): each case types
# a command line and Tab, then reads back the line as Tab left it and the
# matches zsh offered.  The candidates are msprof's (msprof __complete), as
# for bash (completion.sh): option names, option values, the PROF dirs after
# -dir and --output, msprof.py's forms, the application's words left to zsh.
. "$SRCDIR/tests/integration/lib.sh"

command -v zsh >/dev/null || t_skip "zsh is not installed (Debian package zsh; scripts/dev.sh test installs it)"

W=$T_WORK
# "msprof" as typed at a prompt: this build's, first on $PATH
mkdir -p "$W/bin"
ln -s "$MSPROF" "$W/bin/msprof"

# Run inside the interactive zsh: compinit with the completion function's
# folder first on $fpath; compadd wrapped so that each match zsh accepts
# (after its own matching against the word) is also kept in __got; ^T
# (a key no other binding starts with) writes the line and the matches to
# files, empties the line and says so on the terminal.
cat >"$W/setup.zsh" <<'EOF'
PS1='%% ' RPS1=
unsetopt zle_bracketed_paste
# no listing and no menu on Tab: nothing asks "do you wish to see all N
# possibilities?", which would take the next key
unsetopt auto_list auto_menu
fpath=("$FDIR" $fpath)
autoload -Uz compinit && compinit -u -D
typeset -ga __got
typeset -gi __n=0
compadd() {
	# -O/-A/-D: a completion function asking what would match, not offering
	local -a opts=("${@[1,(i)(-|--)]}")
	if (( ${opts[(I)-[OAD]]} )); then
		builtin compadd "$@"
		return
	fi
	local -a hits
	builtin compadd -A hits "$@"
	__got+=("${hits[@]}")
	builtin compadd "$@"
}
_dump() {
	print -r -- "$BUFFER" >"$OUT/line"
	print -rl -- $__got >"$OUT/got"
	print -r -- "$_comps[msprof]" >"$OUT/comps"
	__got=() BUFFER=
	print -n "<dumped $((++__n))>"
}
zle -N _dump
bindkey '^T' _dump
EOF
# One interactive zsh for the whole test (compinit alone takes half a
# second): each line read is typed there, then Tab, then ^T; its number is
# written back once its files are.
cat >"$W/drive.zsh" <<'EOF'
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "source ${(q)SETUP}"
integer n=0
while IFS= read -r l; do
	zpty -n -w z "$l"$'\t\x14'
	zpty -r z reply "*<dumped $((++n))>*" || exit 3
	print $n
done
zpty -d z
EOF
mkdir -p "$W/out"
export PATH="$W/bin:$PATH" FDIR="$SRCDIR/scripts/completion" OUT="$W/out" SETUP="$W/setup.zsh"
coproc ZSH { exec zsh -f "$W/drive.zsh" 2>"$W/out/err"; }
T_PIDS+=("$ZSH_PID")

# zc LINE: complete LINE in zsh; the line after Tab in LINE_AFTER, the
# matches offered in REPLY_LIST, one per line, sorted
zc() {
	local n
	rm -f "$W/out/line" "$W/out/got"
	LINE_AFTER= REPLY_LIST=
	printf '%s\n' "$1" >&"${ZSH[1]}"
	if ! read -r -t 60 n <&"${ZSH[0]}" || [ ! -f "$W/out/line" ]; then
		t_fail "zsh did not complete '$1': $(cat "$W/out/err")"
		return 1
	fi
	LINE_AFTER=$(cat "$W/out/line")
	REPLY_LIST=$(LC_ALL=C sort -u "$W/out/got")
}
has() { if grep -qxF -- "$2" <<<"$REPLY_LIST"; then t_ok "$1"; else t_fail "$1: '$2' not in: $(echo $REPLY_LIST)"; fi; }
hasnt() { if grep -qxF -- "$2" <<<"$REPLY_LIST"; then t_fail "$1: '$2' offered"; else t_ok "$1"; fi; }
only() { t_eq "$1" "$(echo $REPLY_LIST)" "$2"; }
line() { t_eq "$1" "$LINE_AFTER" "$2"; }

zc "msprof --vers"
t_eq "compinit took _msprof for msprof (its #compdef line)" "$(cat "$W/out/comps")" _msprof
line "a flag completes, then a space" "msprof --version "

# --- option names -----------------------------------------------------------
zc "msprof --host-s"
has "--host-s: --host-sys=" --host-sys=
has "--host-s: --host-sys-usage=" --host-sys-usage=
hasnt "--host-s: no other option" --output=
line "--host-s: the part they share" "msprof --host-sys"
zc "msprof --ou"
line "an option waiting for its value: no space after '='" "msprof --output="
zc "msprof --"
t_offers_every_option "$REPLY_LIST"
zc "msprof --ascend"
has "msprof's NPU options too" --ascendcl=
zc "$W/bin/msprof --vers"
line "msprof typed as a path" "$W/bin/msprof --version "
zc "msprof --zz"
only "a bogus option: nothing" ""
line "a bogus option: the line as it was" "msprof --zz"

# --- values: zsh keeps --opt=value one word ------------------------------------
zc "msprof --host-sys=cpu,m"
line "a list: the rest of the word" "msprof --host-sys=cpu,mem "
zc "msprof --host-sys=cpu,"
has "a list: every choice not given yet" "cpu,osrt"
hasnt "a list: not what it holds" "cpu,cpu"
zc "msprof --task-time="
has "--task-time=: l0" l0
has "--task-time=: off" off
hasnt "--task-time=: not l3, which is refused" l3
zc "msprof --type "
only "--type VALUE: the next word" "db text"
zc "msprof --type="
only "--type=VALUE: in the option's word" "db text"
zc "msprof --dynamic=o"
only "on|off" "off on"
zc "msprof --hccl=o"
only "an NPU option's on|off" "off on"
zc "msprof --summary-format=j"
line "--summary-format=j" "msprof --summary-format=json "
zc "msprof --bogus=x"
only "the value of a bogus option: nothing" ""

# --- directories -----------------------------------------------------------------
prof=PROF_000001_20260101000000000_00000001ABCDEFGH
mkdir -p "$W/res/$prof" "$W/res/other"
: >"$W/res/a-file"
zc "msprof --export=on --output=$W/res/"
only "--output with --export: the directories" "$prof other"
zc "msprof --output $W/res/P"
line "--output DIR: the next word" "msprof --output $W/res/$prof/"
zc "msprof export timeline -dir $W/res/P"
line "msprof export timeline -dir: the PROF dir" "msprof export timeline -dir $W/res/$prof/"
zc "msprof export summary -dir=$W/res/P"
line "-dir=: the PROF dir" "msprof export summary -dir=$W/res/$prof/"
mkdir -p "$W/sp ace/$prof"
zc "msprof export db -dir $W/sp\\ ace/P"
line "-dir: a path with a space, quoted" "msprof export db -dir $W/sp\\ ace/$prof/"
zc "msprof export timeline -dir $W/res/a-"
only "-dir: no file" ""

# --- msprof.py's forms and the application --------------------------------------
zc "msprof ex"
has "the first word: msprof.py's export" export
zc "msprof export "
has "export: timeline" timeline
has "export: summary" summary
has "export: db" db
zc "msprof import -d"
line "import -d" "msprof import -dir "
zc "msprof --output=$W/o $W/res/a-f"
line "the application: a path" "msprof --output=$W/o $W/res/a-file "
zc "msprof --output=$W/o -- slee"
has "the application after --: a program on \$PATH" sleep
zc "msprof --output=$W/o sleep --fo"
only "after the application: its own words, not msprof's options" ""
zc "msprof --output=$W/o sh $W/res/a-"
line "after the application: files" "msprof --output=$W/o sh $W/res/a-file "

t_done
