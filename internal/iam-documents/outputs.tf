output "documents" {
  description = "Per key of `sets`: `producer`, `consumer` and `redrive-operator`, each a JSON policy document, or null when the set grants that role nothing."
  value       = local.documents
}

output "granted" {
  description = "Per key of `sets`: `producer`, `consumer` and `redrive-operator`, true when the set grants that role something (and it has a document). Known at plan whenever the lists' lengths and the bucket and table ARNs' presence are."
  value       = local.granted
}
