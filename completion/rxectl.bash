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

# The commands `rxectl --help` lists (its table), one per line.
_rxectl_commands() {
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# The options of `rxectl [COMMAND] --help` that take a value (--wait SECONDS, -c FILE...).
_rxectl_value_options() {
	"$1" ${2:+"$2"} --help 2>/dev/null |
		sed -n 's/^  \(-[a-zA-Z]\)\{0,1\},\{0,1\} *\(--[a-z][a-z-]*\) [A-Z].*/\1 \2/p' |
		tr ' ' '\n' | sed '/^$/d'
}

_rxectl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local rxectl=${COMP_WORDS[0]} cmd="" i w words values
	local -a args=()

	# The command is the first word that is neither an option nor an option's value; the
	# words after it that are neither are its arguments.
	values=" $(_rxectl_value_options "$rxectl" | tr '\n' ' ') "
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case "$w" in
		--*=*) ;;
		-*) [[ "$values" == *" $w "* ]] && ((i++)) ;;	# skip the option's value
		*) if [ -z "$cmd" ]; then
			cmd=$w
			values=" $(_rxectl_value_options "$rxectl" "$cmd" | tr '\n' ' ') "
		   else
			args+=("$w")
		   fi ;;
		esac
	done
	# The value of an option: a file for the configuration, a directory for cdi's --output,
	# nothing to offer otherwise.
	if [[ "$prev" == -* && "$values" == *" $prev "* ]]; then
		if [ "$prev" = --config ] || { [ "$prev" = -c ] && [ "$cmd" != ping ]; } ||
		   [ "$prev" = --output ]; then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		elif [ "$prev" = --for ]; then
			mapfile -t COMPREPLY < <(compgen -W "ucx nccl openmpi libfabric perftest qperf rping ceph spdk all" -- "$cur")
		elif [ "$cmd" = cdi ]; then		# --output DIR, -o DIR
			mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		else
			COMPREPLY=()
		fi
		return
	fi
	if [[ "$cur" == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_rxectl_options "$rxectl" "$cmd")" -- "$cur")
		return
	fi
	case "$cmd" in
	""|help) words="$(_rxectl_commands "$rxectl")" ;;
	up|enable|disable|udev-env|tune) words="$(_rxectl_netdevs)" ;;
	down|doctor|test|gid|stats|env) words="$(_rxectl_netdevs) $(_rxectl_rdma_devices)" ;;
	ping) words="$(_rxectl_rdma_devices)" ;;
	debug) if [ ${#args[@]} = 0 ]; then words="on off status"; else words="$(_rxectl_rdma_devices)"; fi ;;
	driver) case "${args[*]}" in
		"") words="status use" ;;
		use) words="kernel bundled auto" ;;
		*) words="" ;;
		esac ;;
	*) words="" ;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _rxectl rxectl
