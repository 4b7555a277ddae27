# Sourced by bench/suite/verify.sh and characterise.sh. suite_args WHAT sets the array
# SUITE_ARGS to the arguments of `cohscope suite` that run WHAT: a suite's name (those of
# cs_suite_names in workloads/registry.c, and all) or benchmarks by name (NAME,NAME...: members
# of `cohscope suite all`).
suite_args() {
	case "$1" in
	gtsc | rodinia | parboil | ispass | doe | tc | all) SUITE_ARGS=("$1") ;;
	*) SUITE_ARGS=(all -w "$1") ;;
	esac
}
