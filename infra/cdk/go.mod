module github.com/filecontext-aws/filecontext/infra/cdk

go 1.26
