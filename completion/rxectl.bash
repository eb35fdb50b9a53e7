# SPDX-License-Identifier: GPL-2.0
# rxectl.bash - bash completion for rxectl: commands, each command's options (read from
# `rxectl COMMAND --help`, so they never drift), netdev and RDMA device names, files for -c.

_rxectl_netdevs() {
	local d
	for d in /sys/class/net/*; do [ -e "$d" ] && printf '%s\n' "${d##*/}"; done
}

_rxectl_rdma_devices() {
	local d
	for d in /sys/class/infiniband/*; do [ -e "$d" ] && printf '%s\n' "${d##*/}"; done
}

# The options `rxectl [COMMAND] --help` lists, one per line (long and short forms).
_rxectl_options() {
	"$1" ${2:+"$2"} --help 2>/dev/null | sed -n 's/^  \(-[a-zA-Z]\)\{0,1\},\{0,1\} *\(--[a-z][a-z-]*\).*/\1 \2/p' |
		tr ' ' '\n' | sed '/^$/d'
}

_rxectl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local rxectl=${COMP_WORDS[0]} cmd="" i w words
	local commands="up down status enable disable monitor udev-env ping doctor test gid help"

	# The command is the first word that is neither an option nor an option's value.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case "$w" in
		-c|--config) ((i++)) ;;	# skip the file name
		-*) ;;
		*) cmd=$w; break ;;
		esac
	done
	# Options with a value.
	case "$prev" in
	-c|--config)
		if [ "$cmd" != ping ] || [ "$prev" = --config ]; then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return
		fi
		COMPREPLY=()
		return
		;;
	--name|--wait|--port|--count|--timeout|--sizes)
		COMPREPLY=()
		return
		;;
	esac
	if [[ "$cur" == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_rxectl_options "$rxectl" "$cmd")" -- "$cur")
		return
	fi
	case "$cmd" in
	"") words="$commands" ;;
	help) words="$commands" ;;
	up|enable|disable|udev-env) words="$(_rxectl_netdevs)" ;;
	down|doctor|test|gid) words="$(_rxectl_netdevs) $(_rxectl_rdma_devices)" ;;
	ping) words="$(_rxectl_rdma_devices)" ;;
	*) words="" ;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _rxectl rxectl
