# Spacelift plan policy: deny a run whose plan has sqs-policy errors, warn on its warnings and
# the findings it could not decide before apply. It reads the report the stack's after_plan hook
# writes to sqs-policy.custom.spacelift.json (docs/spacelift.md), which Spacelift passes to plan
# policies as input.third_party_metadata.custom["sqs-policy"]. Without that report it denies:
# a check that did not run is not a pass.
package spacelift

import rego.v1

report := input.third_party_metadata.custom["sqs-policy"]

deny contains "sqs-policy: no report (sqs-policy.custom.spacelift.json was not written; see the after_plan hook's output)" if {
	not report
}

deny contains sprintf("sqs-policy %s %s on %s: %s Fix: %s", [f.rule_id, f.slug, f.address, f.message, f.remediation]) if {
	some f in report.findings
	f.state == "error"
}

# with --fail-on warning the check fails on warnings: so does the policy
deny contains sprintf("sqs-policy %s %s on %s: %s", [f.rule_id, f.slug, f.address, f.message]) if {
	report.fail_on == "warning"
	some f in report.findings
	f.state == "warning"
}

warn contains sprintf("sqs-policy %s %s on %s: %s", [f.rule_id, f.slug, f.address, f.message]) if {
	report.fail_on != "warning"
	some f in report.findings
	f.state == "warning"
}

warn contains sprintf("sqs-policy %s %s on %s: not decided before apply: %s", [f.rule_id, f.slug, f.address, f.message]) if {
	some f in report.findings
	f.state == "unknown"
}
