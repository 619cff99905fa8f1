# bash completion for msprof.  The candidates come from msprof itself
# ("msprof __complete WORD...", launcher/complete.c), so that the option
# names and their values are those of the msprof being completed; this
# script only joins the words bash split and lets bash complete paths and
# commands where msprof asks for them.

_msprof_complete()
{
	local i w cur msprof c args=()

	# bash splits "--opt=value" at '=' (COMP_WORDBREAKS): msprof gets the
	# option whole, and bash replaces only what follows the '='
	for ((i = 1; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((${#args[@]})) && [[ $w == = || ${COMP_WORDS[i - 1]} == = ]]; then
			args[-1]+=$w
		else
			args+=("$w")
		fi
	done
	cur=${COMP_WORDS[COMP_CWORD]}
	[[ $cur == = ]] && cur=

	msprof=${COMP_WORDS[0]}
	[[ $msprof == "~/"* ]] && msprof=$HOME/${msprof#"~/"}
	type -P -- "$msprof" >/dev/null || msprof=msprof

	COMPREPLY=()
	while IFS= read -r c; do
		case $c in
		@dirs)
			compopt -o filenames 2>/dev/null
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$cur")
			;;
		@files)
			compopt -o filenames 2>/dev/null
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
			;;
		@commands)
			compopt -o filenames 2>/dev/null
			if [[ $cur == */* ]]; then
				mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
			else
				mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -c -- "$cur")
			fi
			;;
		*=)
			# an option waiting for its value
			compopt -o nospace 2>/dev/null
			COMPREPLY+=("$c")
			;;
		?*)
			COMPREPLY+=("$c")
			;;
		esac
	done < <("$msprof" __complete "${args[@]}" 2>/dev/null)
}

complete -F _msprof_complete msprof
