# Claim-check style buckets whose TLS-only Deny covers: the bucket only (plain-HTTP
# object requests stay allowed: fail), the bucket and its objects (pass), and ARNs
# only known after apply (unknown).
locals {
  buckets = toset(["tls-bucket-only", "tls-bucket-and-objects"])
}

resource "aws_s3_bucket" "b" {
  for_each = local.buckets
  bucket   = each.key
}

resource "aws_s3_bucket_server_side_encryption_configuration" "b" {
  for_each = local.buckets
  bucket   = aws_s3_bucket.b[each.key].id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "b" {
  for_each                = local.buckets
  bucket                  = aws_s3_bucket.b[each.key].id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_policy" "bucket_only" {
  bucket = aws_s3_bucket.b["tls-bucket-only"].id
  policy = <<-EOT
    {
      "Version": "2012-10-17",
      "Statement": [{
        "Sid": "DenyInsecureTransport",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": "arn:aws:s3:::tls-bucket-only",
        "Condition": {"Bool": {"aws:SecureTransport": "false"}}
      }]
    }
  EOT
}

data "aws_iam_policy_document" "objects" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["s3:*"]
    resources = ["arn:aws:s3:::tls-bucket-and-objects", "arn:aws:s3:::tls-bucket-and-objects/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "objects" {
  bucket = aws_s3_bucket.b["tls-bucket-and-objects"].id
  policy = data.aws_iam_policy_document.objects.json
}

# The bucket's arn attribute is only known after apply.
resource "aws_s3_bucket" "late" {
  bucket = "tls-late-arns"
}

resource "aws_s3_bucket_server_side_encryption_configuration" "late" {
  bucket = aws_s3_bucket.late.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "late" {
  bucket                  = aws_s3_bucket.late.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

data "aws_iam_policy_document" "late" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = ["s3:*"]
    resources = [aws_s3_bucket.late.arn, "${aws_s3_bucket.late.arn}/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "late" {
  bucket = aws_s3_bucket.late.id
  policy = data.aws_iam_policy_document.late.json
}
